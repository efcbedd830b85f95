class Parser:
    def parse_line(self, line):
        tokens = line.split()
        return [t.lower() for t in tokens]
