// The promise chains of the compiler-judged suite (benches/refactor_judged.py): rxjs has no
// function that returns a `.then` chain, so convert_to_async is judged on these, in the shapes
// TypeScript's convertToAsyncFunction handles. The suite type-checks the file (strict) after
// each conversion, runs it with node and compares what it prints with the original's output:
// a type check does not see a changed order of effects, a lost rejection or a lost `this`.

function delay<T>(v: T, fail = false): Promise<T> {
  return new Promise((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error(String(v))) : resolve(v)), 1),
  );
}

function double(n: number): number {
  return n * 2;
}

function describe(e: Error): string {
  return "described " + e.message;
}

export function sum(a: number): Promise<string> {
  const start = a * 2;
  return delay(start)
    .then((x) => x + 1)
    .then((y) => {
      console.log("y", y);
      return delay(y * 10);
    })
    .then((z) => "sum:" + z);
}

export function guarded(fail: boolean) {
  return delay(1)
    .then((v) => delay(v + 1, fail))
    .then((w) => w * 3)
    .catch((e) => "caught " + e.message);
}

export function cleanup(fail: boolean): Promise<number> {
  return delay(5, fail)
    .then((v) => {
      console.log("got", v);
      return v + 1;
    })
    .catch((e: unknown) => {
      console.log("error", e instanceof Error ? e.message : e);
      return -1;
    })
    .finally(() => console.log("cleanup"));
}

export function named(fail: boolean) {
  return delay(2, fail).then(double).then(undefined, describe);
}

export const nothing = () =>
  delay(1)
    .then(() => {
      console.log("side");
    })
    .then((u) => typeof u);

export class Counter {
  n = 1;
  bump() {
    return delay(this.n).then((v) => {
      this.n = v + 1;
      return this.n;
    });
  }
}

export function pick() {
  return delay({ a: 1, b: 2 }).then(({ a, b }) => a + b);
}

export function reassigned() {
  return delay(4).then((x) => {
    x += 1;
    return x;
  });
}

export const thrower = function () {
  return delay(3)
    .then((v): number => {
      throw new Error("boom " + v);
    })
    .catch((e) => e.message as string);
};

export function rejects() {
  return delay(7, true).then((v) => v + 1);
}

export function finallyAfterReject(): Promise<string> {
  return delay("x", true)
    .then((v) => v + "!")
    .catch(() => "recovered")
    .finally(() => delay(0).then(() => console.log("finally waited")));
}

async function main() {
  const out: unknown[] = [];
  out.push(await sum(2));
  out.push(await guarded(false), await guarded(true));
  out.push(await cleanup(false), await cleanup(true));
  out.push(await named(false), await named(true));
  out.push(await nothing());
  const c = new Counter();
  out.push(await c.bump(), await c.bump());
  out.push(await pick(), await reassigned(), await thrower());
  try {
    out.push(await rejects());
  } catch (e) {
    out.push("rejected " + (e as Error).message);
  }
  out.push(await finallyAfterReject());
  console.log(JSON.stringify(out));
}

main();
