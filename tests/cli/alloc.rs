//! A counting allocator for the test binary: the bytes each thread holds, and the most it held
//! while a closure ran ([`peak`]), so a reader test can assert its memory stays under a bound.
//! Counts are per thread (a reader's work on other threads is not counted); a block freed on
//! another thread than the one that allocated it is subtracted there.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting.
pub struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static MOST: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    let _ = HELD.try_with(|h| {
        let now = h.get() + n;
        h.set(now);
        let _ = MOST.try_with(|m| m.set(m.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Runs `f`; returns its result and the most bytes this thread held above what it held before,
/// while `f` ran.
pub fn peak<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let start = HELD.with(Cell::get);
    MOST.with(|m| m.set(start));
    let out = f();
    let most = MOST.with(Cell::get);
    (out, (most - start).max(0) as u64)
}
