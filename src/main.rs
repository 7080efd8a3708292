//! The `git-codecompass` binary: `git codecompass <command>`.

use std::ffi::c_void;

use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_option_set, mi_option_t, mi_realloc};

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

/// Turns transparent huge pages off for this process (and the watchers and syncs it starts).
/// mimalloc asks for them on its arenas, and the kernel then zeroes a whole 2 MiB page for the
/// first byte each thread's heap touches: measured, a one-shot search on the Linux kernel held
/// 129 MiB instead of 112, a cold index of tokio 160 MiB instead of 90, a query across 24
/// repositories 105 MiB instead of 59, in the same time. mimalloc sets up its first arena
/// before `main`, so it is also built never to ask (`no_thp` in Cargo.toml): that took 3.3 MiB
/// more off a kernel search and 4% off a one-shot search of tokio.
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_THP_DISABLE) only sets a flag of this process; it touches no memory
    // of ours, and failing (an old kernel) changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// mimalloc's `mi_option_destroy_on_exit` (its place in `mi_option_e` of the mimalloc 3 that
/// libmimalloc-sys builds; the crate names no constant for it).
const MI_OPTION_DESTROY_ON_EXIT: mi_option_t = 22;

/// Leaves the process's memory to the kernel at exit. A statically linked mimalloc frees and
/// purges every page of every heap when the process ends (`mi_process_done`, for a library
/// that is loaded and unloaded again): work the kernel's own teardown makes pointless, and
/// measured at 10 ms of a 300 ms `history` that had held 80 MiB. A value above 1 makes
/// mimalloc skip that step altogether.
fn no_collect_at_exit() {
    // SAFETY: sets one of mimalloc's options, before any thread but this one exists.
    unsafe { mi_option_set(MI_OPTION_DESTROY_ON_EXIT, 2) }
}

fn main() -> std::process::ExitCode {
    no_transparent_huge_pages();
    no_collect_at_exit();
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
