//! What a write puts in a file: bytes held in memory, or the bytes of a file too large to
//! hold with byte ranges of it replaced, copied from that file as the write goes (a file
//! over the workspace's bound, edited through [`crate::pipeline`]'s streamed plan).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;

/// The bytes of one write.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    Bytes(&'a [u8]),
    Spliced(&'a SplicedFile),
}

impl Content<'_> {
    /// How many bytes the write makes.
    pub fn len(&self) -> u64 {
        match self {
            Content::Bytes(b) => b.len() as u64,
            Content::Spliced(s) => s.result_len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes, when they are held in memory.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Content::Bytes(b) => Some(b),
            Content::Spliced(_) => None,
        }
    }

    /// The content hash of the bytes (a streamed file's read piece by piece); `None` when its
    /// source cannot be read.
    pub fn content_hash(&self) -> Option<String> {
        match self {
            Content::Bytes(b) => Some(crate::hash::content_hash(b)),
            Content::Spliced(s) => {
                let mut hash = crate::hash::StreamingHash::new();
                s.for_each_piece(|piece| hash.update(piece)).ok()?;
                Some(hash.finish())
            }
        }
    }

    /// Writes the bytes to `out`, from its current position.
    pub fn write_to<W: Write + AsFd>(&self, out: &mut W) -> io::Result<()> {
        match self {
            Content::Bytes(b) => out.write_all(b),
            Content::Spliced(s) => s.write_to(out),
        }
    }
}

impl<'a> From<&'a [u8]> for Content<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Content::Bytes(bytes)
    }
}

impl<'a> From<&'a Vec<u8>> for Content<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        Content::Bytes(bytes)
    }
}

/// One replaced range of a [`SplicedFile`]: its bytes `start..end` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeEdit {
    pub start: u64,
    pub end: u64,
    pub text: Vec<u8>,
}

/// A file's bytes with ranges of them replaced. The source is the file as it was read (its
/// descriptor: a rename over its name does not change what is copied), `source_len` bytes
/// long; the ranges are sorted and disjoint, inside it.
#[derive(Debug)]
pub struct SplicedFile {
    source: File,
    source_len: u64,
    edits: Vec<RangeEdit>,
}

/// What one read of the source copies at most, when the system cannot copy between the
/// files itself.
const COPY_CHUNK: usize = 1 << 20;

impl SplicedFile {
    /// `source` (of `source_len` bytes) with `edits` made. `None` when the edits are not
    /// sorted, disjoint and inside it.
    pub fn new(source: File, source_len: u64, edits: Vec<RangeEdit>) -> Option<SplicedFile> {
        let mut at = 0;
        for e in &edits {
            if e.start < at || e.end < e.start || e.end > source_len {
                return None;
            }
            at = e.end;
        }
        Some(SplicedFile {
            source,
            source_len,
            edits,
        })
    }

    pub fn edits(&self) -> &[RangeEdit] {
        &self.edits
    }

    pub fn source(&self) -> &File {
        &self.source
    }

    pub fn source_len(&self) -> u64 {
        self.source_len
    }

    /// The length of the result.
    pub fn result_len(&self) -> u64 {
        let removed: u64 = self.edits.iter().map(|e| e.end - e.start).sum();
        let added: u64 = self.edits.iter().map(|e| e.text.len() as u64).sum();
        self.source_len - removed + added
    }

    /// Calls `each` with the result's bytes, in order, a piece at a time (the source read in
    /// chunks of [`COPY_CHUNK`]).
    pub fn for_each_piece(&self, mut each: impl FnMut(&[u8])) -> io::Result<()> {
        let mut buf = vec![0u8; COPY_CHUNK.min(self.source_len as usize)];
        let mut at = 0;
        let mut kept = |from: u64, to: u64, each: &mut dyn FnMut(&[u8])| -> io::Result<()> {
            let mut pos = from;
            while pos < to {
                let n = (to - pos).min(buf.len() as u64) as usize;
                self.source.read_exact_at(&mut buf[..n], pos)?;
                each(&buf[..n]);
                pos += n as u64;
            }
            Ok(())
        };
        for e in &self.edits {
            kept(at, e.start, &mut each)?;
            each(&e.text);
            at = e.end;
        }
        kept(at, self.source_len, &mut each)
    }

    /// Writes the result to `out` from its position: the kept ranges copied by the system
    /// from file to file where it can (no byte passes through this process), read and
    /// written otherwise.
    fn write_to<W: Write + AsFd>(&self, out: &mut W) -> io::Result<()> {
        let mut at = 0;
        for e in &self.edits {
            self.copy_range(at, e.start, out)?;
            out.write_all(&e.text)?;
            at = e.end;
        }
        self.copy_range(at, self.source_len, out)
    }

    /// Copies the source's bytes `from..to` to `out`'s position.
    #[cfg(target_os = "linux")]
    fn copy_range<W: Write + AsFd>(&self, from: u64, to: u64, out: &mut W) -> io::Result<()> {
        let mut pos = from;
        while pos < to {
            let want = (to - pos) as usize;
            let mut off = pos;
            match rustix::fs::copy_file_range(
                self.source.as_fd(),
                Some(&mut off),
                out.as_fd(),
                None,
                want,
            ) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the file being edited got shorter while it was copied",
                    ));
                }
                Ok(n) => pos += n as u64,
                Err(rustix::io::Errno::INTR) => {}
                // Across file systems, or not offered: copied through a buffer.
                Err(_) => return self.copy_through_buffer(pos, to, out),
            }
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    fn copy_range<W: Write + AsFd>(&self, from: u64, to: u64, out: &mut W) -> io::Result<()> {
        self.copy_through_buffer(from, to, out)
    }

    fn copy_through_buffer<W: Write>(&self, from: u64, to: u64, out: &mut W) -> io::Result<()> {
        let mut buf = vec![0u8; COPY_CHUNK.min((to - from) as usize)];
        let mut pos = from;
        while pos < to {
            let n = (to - pos).min(buf.len() as u64) as usize;
            self.source.read_exact_at(&mut buf[..n], pos)?;
            out.write_all(&buf[..n])?;
            pos += n as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    fn edit(start: u64, end: u64, text: &str) -> RangeEdit {
        RangeEdit {
            start,
            end,
            text: text.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_spliced_file_is_its_source_with_the_ranges_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::write(&src, b"0123456789").unwrap();
        let edits = vec![edit(0, 1, "a"), edit(3, 3, "xyz"), edit(8, 10, "")];
        let sf = SplicedFile::new(File::open(&src).unwrap(), 10, edits).unwrap();
        assert_eq!(sf.result_len(), 11);
        let mut out = tempfile::tempfile().unwrap();
        out.write_all(b">").unwrap();
        Content::Spliced(&sf).write_to(&mut out).unwrap();
        out.rewind().unwrap();
        let mut got = String::new();
        out.read_to_string(&mut got).unwrap();
        assert_eq!(got, ">a12xyz34567");
        let mut pieces = Vec::new();
        sf.for_each_piece(|p| pieces.extend_from_slice(p)).unwrap();
        assert_eq!(pieces, b"a12xyz34567");
        // Unsorted, overlapping or outside the source: refused.
        for bad in [
            vec![edit(3, 4, ""), edit(1, 2, "")],
            vec![edit(1, 4, ""), edit(3, 5, "")],
            vec![edit(9, 11, "")],
        ] {
            assert!(SplicedFile::new(File::open(&src).unwrap(), 10, bad).is_none());
        }
    }
}
