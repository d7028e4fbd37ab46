//! The lock-free front of task 0's shard: what a profiler that reads no
//! clock at a stop does at almost every stop.
//!
//! A stop of the interval profiler takes the shard's lock, reads the clock
//! twice and updates three costs: tens of nanoseconds, where an `add.int`
//! is two or three. A profile that wants exact counts and exact heap
//! figures, and takes its time some other way (a sampler, or not at all),
//! needs almost none of that at most stops. If the stop is in the same
//! frame as the one before and the heap has not moved, the only news is
//! "one more execution of this instruction": one counter, in a flat table
//! indexed by function and pc, and the position the sampler reads. That is
//! [`Hot::step`], a few loads, compares and stores that the dispatch loop
//! inlines when the profiler is installed as its own type.
//!
//! Every other stop — a call, a return, an allocation, the first stop of a
//! run — is *slow*: it hands the pending fast stops to the shard (which
//! keeps the calling-context tree, the call sites and the heap
//! attribution), then records itself there as every stop used to.
//!
//! # Why atomics, and why no lock
//!
//! Only task 0's thread writes these cells, but a report, or a progress
//! line, may read them from another thread while the run goes on. Relaxed
//! atomics make that read well-defined at the price of nothing on the
//! writer's side: a relaxed load and a relaxed store are the plain moves
//! an unsynchronised counter would be. A reader mid-run sees a count that
//! is a little behind, never a torn one. Spawned tasks keep the locked
//! path: they are rarer, and their shards are found through a table.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use cove_ir::op::StretchEnd;
use cove_ir::program::{FunctionId, Program};

/// The flat count table: every instruction of the program one cell.
///
/// The profiler is stopped at stretches
/// ([`Opcode::ends_stretch`](cove_ir::op::Opcode::ends_stretch)), so a cell
/// counts how often a stretch *started* at its instruction, and says how
/// many instructions each such stretch runs: the report turns starts into
/// every instruction's exact count.
#[derive(Debug)]
struct Counts {
    /// Each function's cells, in `cells`.
    functions: Box<[Cells]>,
    /// Every function's cells, one after another. Never resized once made,
    /// so the pointers in `functions` stay valid as long as the table.
    cells: Box<[Cell]>,
}

/// One instruction's cell: what the fast path reads and writes together,
/// so that a stop is one bounds check and one cache line.
#[derive(Debug)]
struct Cell {
    /// How often a stretch started here.
    starts: AtomicU64,
    /// The length of the stretch that starts here.
    length: u32,
    /// How that stretch ends: in an instruction that may allocate
    /// ([`StretchEnd::Other`]), or one that jumps, calls or returns.
    end: StretchEnd,
}

/// A cell of the flat table and its function's cells: what [`Hot::find`]
/// gives a slow stop, so that the stretch it starts is looked up once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found<'h> {
    cells: Cells,
    cell: &'h Cell,
}

/// One function's cells in the flat table: where they start and how many
/// there are, or nowhere and none where the table has no such function.
///
/// A raw pointer and a length rather than an index into the table, so that
/// a stop finds its cell by one comparison and one addition, with no look
/// at whether the table is there yet and no second bounds check.
#[derive(Debug, Clone, Copy)]
struct Cells {
    first: *const Cell,
    len: u32,
}

// SAFETY: a `Cells` points into the boxed table of the `Counts` that holds
// it, or of the `Hot` whose front it is; that table is only ever read
// through it, its counters are atomics, and it outlives every `Cells` of it.
unsafe impl Send for Cells {}
// SAFETY: as for `Send`.
unsafe impl Sync for Cells {}

impl Cells {
    /// No cells: every stop that would find one here is a slow one. Its
    /// pointer is dangling, not null, so that it is an empty slice too.
    const NONE: Cells = Cells {
        first: std::ptr::NonNull::dangling().as_ptr(),
        len: 0,
    };

    /// These cells, of `table`, which they are of.
    #[inline(always)]
    fn all<'t>(&self, table: &'t Counts) -> &'t [Cell] {
        debug_assert!(self.len == 0 || table.cells.as_ptr_range().contains(&self.first));
        // SAFETY: `first` and `len` describe cells of `table` (see
        // `Counts::new`), which lives for `'t`, or are `Cells::NONE`'s
        // aligned, non-null pointer and no cells.
        unsafe { std::slice::from_raw_parts(self.first, self.len as usize) }
    }

    /// The cell at `pc`, if there is one, of `table`, which these cells
    /// are of.
    #[inline(always)]
    fn get<'t>(&self, table: &'t Counts, pc: u32) -> Option<&'t Cell> {
        self.all(table).get(pc as usize)
    }
}

impl Counts {
    /// The table of `cells`, of which each function has the number
    /// `lengths` gives, in order.
    fn new(cells: Vec<Cell>, lengths: impl Iterator<Item = usize>) -> Counts {
        let cells = cells.into_boxed_slice();
        let mut start = 0;
        let functions = lengths
            .map(|length| {
                let mine = &cells[start..start + length];
                start += length;
                Cells {
                    first: mine.as_ptr(),
                    // The verifier bounds a function's code far below
                    // `u32::MAX`.
                    len: u32::try_from(mine.len()).unwrap_or(0),
                }
            })
            .collect();
        Counts { functions, cells }
    }

    /// `function`'s cells, if the table has that function.
    #[inline(always)]
    fn of(&self, function: FunctionId) -> Option<Cells> {
        self.functions.get(function.index()).copied()
    }
}

/// Task 0's last stop and its fast-path counts.
#[derive(Debug)]
pub(crate) struct Hot {
    /// The function and pc of the last stop: the position a sampler reads.
    function: AtomicU32,
    pc: AtomicU32,
    /// The depth and the heap's word counter at the last stop; a stop that
    /// matches both, in the same function, is a fast one.
    depth: AtomicUsize,
    words: AtomicU64,
    /// The calling-context node the last stop ran in, for the sampler.
    node: AtomicU32,
    /// The last stop's function's cells in the flat table ([`Cells`]),
    /// kept as two atomics that only task 0's thread writes and only it
    /// reads as a pair: a reader elsewhere never looks at them.
    cells_first: AtomicPtr<Cell>,
    cells_len: AtomicU32,
    /// The length of the stretch the last stop started.
    length: AtomicU32,
    /// Whether task 0 is inside a slow stop, and of which kind (an
    /// [`Inside`] as its number): the sampler charges what it finds then
    /// to the profiler itself, so the dearer stops' cost is measured, not
    /// estimated.
    busy: std::sync::atomic::AtomicU8,
    /// Fast stops since the last slow one, not yet given to the shard.
    pending: AtomicU64,
    /// The shard's count of instructions at the last slow stop, for a
    /// reader on another thread while the shard is leased.
    published: AtomicU64,
    counts: OnceLock<Counts>,
}

/// Where task 0 is when the sampler looks: running the program, or inside
/// one of the profiler's slow stops. The stops after an allocation or a
/// builtin are told apart from the rest because part of their cost is
/// spent before the profiler is reached, where no sample can see it, and a
/// sampled profile weighs what it saw of them against their calibrated
/// cost ([`crate::StopCosts::heavy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Inside {
    /// Running the program: a sample is charged where it is.
    Program = 0,
    /// In a slow stop of any other kind: a call's, a return's, the first.
    Slow = 1,
    /// In the stop after an allocation or a builtin.
    Heavy = 2,
}

impl Default for Hot {
    fn default() -> Hot {
        Hot {
            function: AtomicU32::new(u32::MAX),
            pc: AtomicU32::new(0),
            // No stop has this depth, so the first stop is slow.
            depth: AtomicUsize::new(usize::MAX),
            words: AtomicU64::new(0),
            node: AtomicU32::new(0),
            cells_first: AtomicPtr::new(std::ptr::null_mut()),
            cells_len: AtomicU32::new(0),
            length: AtomicU32::new(1),
            busy: std::sync::atomic::AtomicU8::new(Inside::Program as u8),
            pending: AtomicU64::new(0),
            published: AtomicU64::new(0),
            counts: OnceLock::new(),
        }
    }
}

/// Adds one to a counter only this thread writes.
#[inline(always)]
fn bump(cell: &AtomicU64) {
    cell.store(cell.load(Relaxed) + 1, Relaxed);
}

impl Hot {
    /// Records a stop if it is a fast one, and says whether it was.
    ///
    /// A stop is fast when it is in the function, at the depth and with the
    /// heap counter of the stop before: nothing but the count moved.
    #[inline(always)]
    pub(crate) fn step(&self, function: FunctionId, pc: u32, depth: usize, words: u64) -> bool {
        if depth != self.depth.load(Relaxed)
            || words != self.words.load(Relaxed)
            || function.0 != self.function.load(Relaxed)
        {
            return false;
        }
        self.branched(pc)
    }

    /// Whether a stop in `function` at `depth` is in the frame of the stop
    /// before: the test of [`Hot::step`] without the heap's.
    #[inline(always)]
    pub(crate) fn in_frame(&self, function: FunctionId, depth: usize) -> bool {
        depth == self.depth.load(Relaxed) && function.0 == self.function.load(Relaxed)
    }

    /// Records a stop after a branch: in the function, at the depth and with
    /// the heap counter of the stop before, which the loop knows without
    /// looking, so only the count moves. False, with nothing recorded, when
    /// there is no table yet, or `pc` is past the function's cells.
    #[inline(always)]
    pub(crate) fn branched(&self, pc: u32) -> bool {
        // The function's cells were found at the slow stop that entered it
        // (none before the table is made, so the test fails then).
        if pc >= self.cells_len.load(Relaxed) {
            return false;
        }
        // SAFETY: `cells_first` and `cells_len` are stored together, by this thread
        // (`Hot::enter`), from a `Cells` of the table in `self.counts`,
        // which once made is neither moved nor freed while `self` lives;
        // `pc` is below its length, so the cell is one of that function's.
        let cell = unsafe { &*self.cells_first.load(Relaxed).add(pc as usize) };
        self.start(pc, cell, self.pending.load(Relaxed));
        true
    }

    /// Makes `cells` the function the next branch's stop looks in.
    #[inline(always)]
    fn enter(&self, cells: Cells) {
        self.cells_first.store(cells.first.cast_mut(), Relaxed);
        self.cells_len.store(cells.len, Relaxed);
    }

    /// Counts a stretch starting at `pc`, whose cell is `cell`, on top of
    /// `pending` fast stops, and makes it the position.
    #[inline(always)]
    fn start(&self, pc: u32, cell: &Cell, pending: u64) {
        // Read once: after the atomic stores below the optimiser would
        // load it again.
        let length = cell.length;
        bump(&cell.starts);
        self.pending.store(pending + u64::from(length), Relaxed);
        self.pc.store(pc, Relaxed);
        self.length.store(length, Relaxed);
    }

    /// The length of the stretch that starts at `function`'s `pc`: 1 where
    /// no program has been seen (a profile fed by hand, one instruction a
    /// stop).
    pub(crate) fn length(&self, function: FunctionId, pc: u32) -> u32 {
        self.cell(function, pc).map_or(1, |cell| cell.length)
    }

    /// How the stretch starting at `function`'s `pc` ends: `No` where no
    /// program has been seen.
    pub(crate) fn end(&self, function: FunctionId, pc: u32) -> StretchEnd {
        self.cell(function, pc)
            .map_or(StretchEnd::No, |cell| cell.end)
    }

    /// Whether the stretch starting at `function`'s `pc` ends in an
    /// instruction that allocates.
    pub(crate) fn is_heavy(&self, function: FunctionId, pc: u32) -> bool {
        self.end(function, pc) == StretchEnd::Other
    }

    fn cell(&self, function: FunctionId, pc: u32) -> Option<&Cell> {
        let counts = self.counts.get()?;
        counts.of(function)?.get(counts, pc)
    }

    /// Makes the count table for `program`, once.
    pub(crate) fn prepare(&self, program: &Program) {
        if self.counts.get().is_some() {
            return;
        }
        self.counts.get_or_init(|| {
            let mut cells: Vec<Cell> = Vec::new();
            for function in &program.functions {
                let code = &function.code;
                let lengths = cove_ir::op::stretch_lengths(code);
                cells.extend(lengths.iter().enumerate().map(|(pc, &length)| Cell {
                    starts: AtomicU64::new(0),
                    length,
                    end: code[pc + length as usize - 1].opcode().stretch_end(),
                }));
            }
            Counts::new(cells, program.functions.iter().map(|f| f.code.len()))
        });
    }

    /// Makes a count table of one-instruction stretches for functions of
    /// these lengths, once: for calibration, which has no program.
    pub(crate) fn prepare_cells(&self, lengths: &[usize]) {
        self.counts.get_or_init(|| {
            let total = lengths.iter().sum();
            let cells = (0..total)
                .map(|_| Cell {
                    starts: AtomicU64::new(0),
                    length: 1,
                    end: StretchEnd::No,
                })
                .collect();
            Counts::new(cells, lengths.iter().copied())
        });
    }

    /// Where the last stop was, the length of the stretch it started, and
    /// the fast stops not yet handed on: the first half of a slow stop.
    pub(crate) fn take(&self) -> (FunctionId, u32, u32, u64) {
        (
            FunctionId(self.function.load(Relaxed)),
            self.pc.load(Relaxed),
            self.length.load(Relaxed),
            {
                // Only this thread writes it: a load and a store, not the
                // locked exchange a `swap` would be.
                let pending = self.pending.load(Relaxed);
                self.pending.store(0, Relaxed);
                pending
            },
        )
    }

    /// What [`Hot::take`] gives, without taking the pending stops.
    pub(crate) fn peek(&self) -> (FunctionId, u32, u32, u64) {
        (
            FunctionId(self.function.load(Relaxed)),
            self.pc.load(Relaxed),
            self.length.load(Relaxed),
            self.pending.load(Relaxed),
        )
    }

    /// Takes `unran` instructions back from the pending fast stops' count.
    pub(crate) fn take_back(&self, unran: u64) {
        self.pending
            .store(self.pending.load(Relaxed).saturating_sub(unran), Relaxed);
    }

    /// Moves the position to a slow stop's instruction at once, so that a
    /// sampler reading during the slow stop charges it to that instruction,
    /// and gives the length of the stretch it starts (1 where no program
    /// has been seen).
    pub(crate) fn point(&self, function: FunctionId, pc: u32) -> u32 {
        let (cells, length) = match self.counts.get() {
            Some(counts) => {
                let cells = counts.of(function).unwrap_or(Cells::NONE);
                (cells, cells.get(counts, pc).map_or(1, |cell| cell.length))
            }
            None => (Cells::NONE, 1),
        };
        self.function.store(function.0, Relaxed);
        self.pc.store(pc, Relaxed);
        self.length.store(length, Relaxed);
        self.enter(cells);
        length
    }

    /// The cell of the stretch starting at `function`'s `pc`, and where
    /// the function's cells start, if the table has it: found once by a
    /// glanced slow stop, before the shard records it, and used again by
    /// [`Hot::hopped`] or [`Hot::moved`] to count the stretch.
    #[inline]
    pub(crate) fn find(&self, function: FunctionId, pc: u32) -> Option<Found<'_>> {
        let counts = self.counts.get()?;
        let cells = counts.of(function)?;
        let cell = cells.get(counts, pc)?;
        Some(Found { cells, cell })
    }

    /// The second half of a call's or a return's glanced stop, once the
    /// shard has moved to the new frame (`node`, at `depth`): the pending
    /// stops were handed on, and the stretch starting at `function`'s `pc`
    /// (`found` by [`Hot::find`]) is counted as a fast stop counts one.
    #[inline]
    pub(crate) fn hopped(
        &self,
        function: FunctionId,
        pc: u32,
        found: Found<'_>,
        depth: usize,
        node: u32,
    ) {
        self.function.store(function.0, Relaxed);
        self.enter(found.cells);
        self.depth.store(depth, Relaxed);
        self.node.store(node, Relaxed);
        self.start(pc, found.cell, 0);
    }

    /// The second half of a stop in the frame of the stop before after the
    /// heap moved, once the shard has charged the movement: the pending
    /// stops were handed on, the heap's counter is `words`, and the
    /// stretch starting at `pc` (`found` by [`Hot::find`]) is counted as a
    /// fast stop counts one.
    #[inline]
    pub(crate) fn moved(&self, pc: u32, found: Found<'_>, depth: usize, words: u64, node: u32) {
        self.settle(depth, words, node);
        self.start(pc, found.cell, 0);
    }

    /// The second half of a slow stop: what the next stop must match to be
    /// fast.
    #[inline]
    pub(crate) fn settle(&self, depth: usize, words: u64, node: u32) {
        self.depth.store(depth, Relaxed);
        self.words.store(words, Relaxed);
        self.node.store(node, Relaxed);
    }

    /// Marks task 0 as inside a slow stop of this kind, or out of it again
    /// (`Inside::Program`).
    pub(crate) fn busy(&self, inside: Inside) {
        self.busy.store(inside as u8, Relaxed);
    }

    /// Where task 0 is: in the program or in which kind of slow stop.
    pub(crate) fn inside(&self) -> Inside {
        match self.busy.load(Relaxed) {
            0 => Inside::Program,
            1 => Inside::Slow,
            _ => Inside::Heavy,
        }
    }

    /// Whether the stop being made follows a stretch that ended in an
    /// allocation or a builtin: the last stop started that stretch.
    pub(crate) fn after_heavy(&self) -> bool {
        self.is_heavy(
            FunctionId(self.function.load(Relaxed)),
            self.pc.load(Relaxed),
        )
    }

    /// The position a sampler reads: function, pc and context node.
    pub(crate) fn position(&self) -> (u32, u32, u32) {
        (
            self.function.load(Relaxed),
            self.pc.load(Relaxed),
            self.node.load(Relaxed),
        )
    }

    /// Says how many instructions the shard holds now.
    pub(crate) fn publish(&self, ran: u64) {
        self.published.store(ran, Relaxed);
    }

    /// How many instructions the shard held at its last stop.
    pub(crate) fn published(&self) -> u64 {
        self.published.load(Relaxed)
    }

    /// Fast stops not yet handed to the shard.
    pub(crate) fn pending(&self) -> u64 {
        self.pending.load(Relaxed)
    }

    /// Every instruction the fast path counted, with its count.
    pub(crate) fn counted(&self) -> Vec<((FunctionId, u32), u64)> {
        let Some(counts) = self.counts.get() else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (f, cells) in counts.functions.iter().enumerate() {
            for (pc, cell) in cells.all(counts).iter().enumerate() {
                let n = cell.starts.load(Relaxed);
                if n > 0 {
                    rows.push(((FunctionId(f as u32), pc as u32), n));
                }
            }
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program() -> Program {
        cove_compiler::compile_module("m", "export fn main() -> Int { 1 + 2 }\n").unwrap()
    }

    #[test]
    fn a_stop_is_fast_only_in_the_frame_and_heap_of_the_stop_before() {
        let hot = Hot::default();
        hot.prepare(&program());
        let main = FunctionId(0);
        assert!(!hot.step(main, 0, 1, 0), "the first stop is slow");
        assert_eq!(hot.point(main, 0), hot.length(main, 0));
        hot.settle(1, 0, 1);
        assert!(hot.step(main, 1, 1, 0));
        assert!(!hot.step(main, 1, 2, 0), "another depth is slow");
        assert!(!hot.step(main, 1, 1, 5), "a moved heap is slow");
        let length = u64::from(hot.length(main, 1));
        assert_eq!(hot.pending(), length, "pending counts instructions");
        assert_eq!(hot.take(), (main, 1, length as u32, length));
        assert_eq!(hot.counted(), vec![((main, 1), 1)]);
    }
}
