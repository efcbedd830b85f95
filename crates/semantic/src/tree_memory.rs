//! What tree-sitter allocates while one parse runs, counted as it allocates, so that a parse
//! can be stopped before its tree passes a budget ([`crate::bounds::MAX_SYNTAX_TREE_BYTES`]).
//!
//! Tree-sitter says nothing about memory while it parses, and what a tree takes follows its
//! text's tokens, not its length: 2 MB of ordinary code builds 40 to 60 MB, 2 MB of
//! one-character tokens (`[1,2,3,...]`) 384 MB. Counting nodes after the parse is too late,
//! and guessing them from the text before it depends on each grammar's tokens. So tree-sitter's
//! C library is given allocation functions ([`tree_sitter::set_allocator`], once per
//! process) that are the C library's own `malloc` family, which it uses by default, plus a
//! count: on the thread that parses, and only while a [`Meter`] runs on it, the size of each
//! block allocated less the size of each block freed. The sizes are the allocator's own
//! (`malloc_usable_size` and its like), so a `realloc` or a `free` is counted without a table
//! of what was allocated. A parse checks the count from its progress callback, which
//! tree-sitter calls every 100 steps of the parse and of the balancing that ends it.
//!
//! The count is this parse's: blocks allocated or freed by other threads (a tree dropped on
//! another thread, another parse) or outside a parse are not in it. On a platform without a
//! way to ask a block's size (none of those filekit is built for) nothing is counted.

use std::cell::Cell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Once;

thread_local! {
    /// Bytes tree-sitter holds that it allocated on this thread while a [`Meter`] runs; `None`
    /// when none runs.
    static COUNT: Cell<Option<isize>> = const { Cell::new(None) };
}

/// Counts what tree-sitter allocates on this thread while it lives; one at a time per thread.
pub(crate) struct Meter {
    // The count is this thread's.
    _thread: PhantomData<*const ()>,
}

impl Meter {
    /// Starts counting at zero. The first meter of the process gives tree-sitter the counting
    /// allocation functions, before the parser it is for is made.
    pub(crate) fn start() -> Meter {
        install();
        COUNT.with(|c| {
            debug_assert!(c.get().is_none(), "one meter at a time on a thread");
            c.set(Some(0));
        });
        Meter {
            _thread: PhantomData,
        }
    }

    /// The bytes tree-sitter allocated on this thread since the meter started and still holds.
    pub(crate) fn bytes(&self) -> u64 {
        COUNT.with(|c| c.get().unwrap_or(0).max(0) as u64)
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        COUNT.with(|c| c.set(None));
    }
}

fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if !COUNTED {
            return;
        }
        // SAFETY: the four functions are the C library's `malloc`, `calloc`, `realloc` and
        // `free` (one allocator family, aborting rather than returning null as tree-sitter's
        // defaults do, libc's alignment), and tree-sitter's defaults are the same four; so a
        // block allocated before the swap and freed after it, or the reverse, meets the
        // allocator that made it, and a thread that read the pointers while they changed
        // still calls a matching function. The swap happens once, before the first parser
        // this crate makes ([`Meter::start`] runs before each), and every tree-sitter object
        // of filekit's comes from one of them.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc: counted_malloc,
                calloc: counted_calloc,
                realloc: counted_realloc,
                free: counted_free,
            }))
        }
    });
}

/// Adds `delta` to the count when a meter runs on this thread.
fn count(delta: isize) {
    COUNT.with(|c| {
        if let Some(n) = c.get() {
            c.set(Some(n.saturating_add(delta)));
        }
    });
}

fn counting() -> bool {
    COUNT.with(|c| c.get().is_some())
}

/// What tree-sitter's own allocation functions do when the memory is not there: nothing it
/// calls checks for null.
fn out_of_memory() -> ! {
    std::process::abort()
}

unsafe extern "C" fn counted_malloc(size: usize) -> *mut c_void {
    // SAFETY: the C library's malloc, for any size.
    let block = unsafe { libc::malloc(size) };
    if block.is_null() && size > 0 {
        out_of_memory();
    }
    if counting() {
        // SAFETY: `block` was just allocated by malloc (or is null).
        count(unsafe { block_size(block) } as isize);
    }
    block
}

unsafe extern "C" fn counted_calloc(items: usize, size: usize) -> *mut c_void {
    // SAFETY: the C library's calloc, which checks `items * size` itself.
    let block = unsafe { libc::calloc(items, size) };
    if block.is_null() && items > 0 && size > 0 {
        out_of_memory();
    }
    if counting() {
        // SAFETY: `block` was just allocated by calloc (or is null).
        count(unsafe { block_size(block) } as isize);
    }
    block
}

unsafe extern "C" fn counted_realloc(old: *mut c_void, size: usize) -> *mut c_void {
    let counted = counting();
    // SAFETY: tree-sitter passes a block of this allocator family (or null), still live.
    let before = if counted {
        unsafe { block_size(old) }
    } else {
        0
    };
    // SAFETY: as above; `old` is not used again unless realloc failed.
    let block = unsafe { libc::realloc(old, size) };
    if block.is_null() && size > 0 {
        out_of_memory();
    }
    if counted {
        // SAFETY: `block` is what realloc returned (or null).
        count(unsafe { block_size(block) } as isize - before as isize);
    }
    block
}

unsafe extern "C" fn counted_free(block: *mut c_void) {
    if counting() {
        // SAFETY: tree-sitter frees a live block of this allocator family (or null).
        count(-(unsafe { block_size(block) } as isize));
    }
    // SAFETY: as above.
    unsafe { libc::free(block) }
}

/// Whether this platform can say a block's size, and so whether anything is counted.
const COUNTED: bool = cfg!(any(
    target_os = "linux",
    target_vendor = "apple",
    target_os = "windows"
));

/// The size the C library gave `block` (0 for null).
///
/// # Safety
/// `block` is null or a live block of the C library's `malloc` family.
#[cfg(target_os = "linux")]
unsafe fn block_size(block: *mut c_void) -> usize {
    unsafe { libc::malloc_usable_size(block) }
}

#[cfg(target_vendor = "apple")]
unsafe fn block_size(block: *mut c_void) -> usize {
    unsafe { libc::malloc_size(block) }
}

#[cfg(target_os = "windows")]
unsafe fn block_size(block: *mut c_void) -> usize {
    if block.is_null() {
        0
    } else {
        unsafe { libc::_msize(block) }
    }
}

#[cfg(not(any(target_os = "linux", target_vendor = "apple", target_os = "windows")))]
unsafe fn block_size(_block: *mut c_void) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parser() -> tree_sitter::Parser {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&crate::code::language(crate::Lang::TypeScript))
            .unwrap();
        parser
    }

    #[test]
    fn a_parse_is_charged_for_its_tree_and_given_back_what_it_frees() {
        let sparse = format!("const s = \"{}\";\n", "x".repeat(100_000));
        let dense = format!("const a = [{}0];\n", "1,".repeat(50_000));
        let meter = Meter::start();
        let tree = parser().parse(&sparse, None).unwrap();
        assert!(meter.bytes() < 100_000, "{}", meter.bytes());
        drop((meter, tree));
        let meter = Meter::start();
        let mut parser = parser();
        let tree = parser.parse(&dense, None).unwrap();
        // 100,000 nodes of a few dozen bytes each at least.
        assert!(tree.root_node().descendant_count() > 100_000);
        let built = meter.bytes();
        assert!(built > 3_000_000, "{built}");
        drop((tree, parser));
        assert!(meter.bytes() < built / 100, "{} of {built}", meter.bytes());
    }
}
