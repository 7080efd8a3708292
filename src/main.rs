//! The `git-codecompass` binary: `git codecompass <command>`.

use std::ffi::c_void;

use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_realloc};

/// Indexing allocates from every thread at once (parsers, extractors, the full-text writer);
/// mimalloc's per-thread heaps avoid the contention of the system allocator's arenas.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// tree-sitter's parsers get the same allocator. Like tree-sitter's own wrappers, these abort
// when memory is exhausted instead of handing a null pointer to the parser.

/// `p`, or an abort when an allocation of a non-zero size failed.
fn or_abort(p: *mut c_void, size: usize) -> *mut c_void {
    if p.is_null() && size != 0 {
        std::process::abort();
    }
    p
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut c_void {
    or_abort(unsafe { mi_malloc(size) }, size)
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut c_void {
    or_abort(unsafe { mi_calloc(count, size) }, count.saturating_mul(size))
}

unsafe extern "C" fn ts_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    or_abort(unsafe { mi_realloc(ptr, size) }, size)
}

unsafe extern "C" fn ts_free(ptr: *mut c_void) {
    unsafe { mi_free(ptr) }
}

fn main() -> std::process::ExitCode {
    // SAFETY: the four functions are one allocator family, never return null for a non-zero
    // size, align like malloc, and are installed once, on the main thread, before any
    // tree-sitter object exists.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: ts_malloc,
            calloc: ts_calloc,
            realloc: ts_realloc,
            free: ts_free,
        }));
    }
    codecompass::cli::main()
}
