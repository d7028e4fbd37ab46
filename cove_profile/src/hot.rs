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
//! The commonest stop after an allocation is nearly as plain: in the same
//! frame, with only the heap's counters moved. [`Hot::moved_glance`] adds
//! what they moved to the stretch that just ended, in a second flat table
//! beside the counts, and keeps the sum pending for the calling context, as
//! the count is, so that such a stop costs a few more loads and stores and
//! not a stop built out of line and recorded in the shard (about 250
//! native instructions, where the glance is a few tens).
//!
//! Every other stop — a call, a return, an allocation after which the task
//! waited, the first stop of a run — is *slow*: it hands the pending fast
//! stops and heap figures to the shard (which keeps the calling-context
//! tree, the call sites and the heap attribution), then records itself
//! there as every stop used to.
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

use crate::profiler::Sample;
use crate::shard::Shard;

/// The flat count table: every instruction of the program one cell.
///
/// The profiler is stopped at stretches
/// ([`Opcode::ends_stretch`](cove_ir::op::Opcode::ends_stretch)), so a cell
/// counts how often a stretch *started* at its instruction, and says how
/// many instructions each such stretch runs: the report turns starts into
/// every instruction's exact count.
#[derive(Debug)]
struct Counts {
    /// Each function's cells, in `cells` and `heap`.
    functions: Box<[Cells]>,
    /// Every function's cells, one after another. Never resized once made,
    /// so the pointers in `functions` stay valid as long as the table.
    cells: Box<[Cell]>,
    /// Beside each cell, what the heap handed out at the end of the
    /// stretch that starts there, as [`Hot::moved_glance`] found it. Apart
    /// from the counts, so that a count's cell stays small and the common
    /// stop reads no more of the cache.
    heap: Box<[HeapCell]>,
}

/// A stretch start and the heap's words and objects its stretch's end was
/// charged by [`Hot::moved_glance`].
pub(crate) type HeapRow = ((FunctionId, u32), (u64, u64));

/// What the heap handed out at the end of one stretch, summed over the
/// stops after it that [`Hot::moved_glance`] took (the shard holds the
/// rest): the words and objects of its last instruction, the only one of a
/// stretch that allocates.
#[derive(Debug, Default)]
struct HeapCell {
    words: AtomicU64,
    allocations: AtomicU64,
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
        let heap: Box<[HeapCell]> = cells.iter().map(|_| HeapCell::default()).collect();
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
        Counts {
            functions,
            cells,
            heap,
        }
    }

    /// The heap cells beside `cells`, which are this table's.
    fn heap_of(&self, cells: &Cells) -> &[HeapCell] {
        let mine = cells.all(self);
        if mine.is_empty() {
            return &[];
        }
        // SAFETY: `cells` are of this table (see `Counts::new`), so their
        // first is in `self.cells`.
        let start = unsafe { mine.as_ptr().offset_from(self.cells.as_ptr()) } as usize;
        &self.heap[start..start + mine.len()]
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
    /// The heap's counters and the blocked time at the last stop, each on
    /// its own (`words` is their [`Sample::movement`]): what an allocation's
    /// glance takes the heap's movement from.
    heap_words: AtomicU64,
    heap_allocations: AtomicU64,
    blocked: AtomicU64,
    /// The calling-context node the last stop ran in, for the sampler.
    node: AtomicU32,
    /// The last stop's function's cells in the flat table ([`Cells`]),
    /// kept as two atomics that only task 0's thread writes and only it
    /// reads as a pair: a reader elsewhere never looks at them.
    cells_first: AtomicPtr<Cell>,
    cells_len: AtomicU32,
    /// Where the count table's cells and its heap cells start, stored once
    /// the table is made: an allocation's glance finds the heap cell beside
    /// a count's by the count's place, so that a call's and a return's
    /// stop store no second pointer.
    cells_base: AtomicPtr<Cell>,
    heap_base: AtomicPtr<HeapCell>,
    /// The length of the stretch the last stop started.
    length: AtomicU32,
    /// Whether task 0 is inside a slow stop, and of which kind (an
    /// [`Inside`] as its number): the sampler charges what it finds then
    /// to the profiler itself, so the dearer stops' cost is measured, not
    /// estimated.
    busy: std::sync::atomic::AtomicU8,
    /// Fast stops since the last slow one, not yet given to the shard.
    pending: AtomicU64,
    /// The heap's words and objects the allocations' glances took since
    /// the last slow stop, not yet given to the shard's calling context
    /// and totals (their instructions have them already, in `heap`).
    pending_words: AtomicU64,
    pending_allocations: AtomicU64,
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
            heap_words: AtomicU64::new(0),
            heap_allocations: AtomicU64::new(0),
            blocked: AtomicU64::new(0),
            node: AtomicU32::new(0),
            cells_first: AtomicPtr::new(std::ptr::null_mut()),
            cells_len: AtomicU32::new(0),
            cells_base: AtomicPtr::new(std::ptr::null_mut()),
            heap_base: AtomicPtr::new(std::ptr::null_mut()),
            length: AtomicU32::new(1),
            busy: std::sync::atomic::AtomicU8::new(Inside::Program as u8),
            pending: AtomicU64::new(0),
            pending_words: AtomicU64::new(0),
            pending_allocations: AtomicU64::new(0),
            published: AtomicU64::new(0),
            counts: OnceLock::new(),
        }
    }
}

/// Adds one to a counter only this thread writes.
#[inline(always)]
fn bump(cell: &AtomicU64) {
    add(cell, 1);
}

/// Adds `n` to a counter only this thread writes.
#[inline(always)]
fn add(cell: &AtomicU64, n: u64) {
    cell.store(cell.load(Relaxed).wrapping_add(n), Relaxed);
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

    /// Records the stop after an instruction that may have allocated, if
    /// it is in the frame of the stop before and the task waited for
    /// nothing since: what the heap's counters (`words`, `allocations`)
    /// moved goes to the stretch the last stop started, whose last
    /// instruction moved them, and stays pending for the shard's calling
    /// context; then the stretch starting at `pc` is counted as a branch's
    /// stop counts one. False, with nothing recorded, anywhere else.
    #[inline(always)]
    pub(crate) fn moved_glance(
        &self,
        function: FunctionId,
        pc: u32,
        depth: usize,
        words: u64,
        allocations: u64,
        blocked: u64,
    ) -> bool {
        let len = self.cells_len.load(Relaxed);
        let before = self.pc.load(Relaxed);
        if depth != self.depth.load(Relaxed)
            || function.0 != self.function.load(Relaxed)
            || blocked != self.blocked.load(Relaxed)
            || pc >= len
            || before >= len
        {
            return false;
        }
        // Both counters are cumulative: never below their last readings.
        let moved_words = words.wrapping_sub(self.heap_words.load(Relaxed));
        let moved_allocations = allocations.wrapping_sub(self.heap_allocations.load(Relaxed));
        let first = self.cells_first.load(Relaxed);
        // SAFETY: `cells_first` and `cells_len` are stored together, by
        // this thread (`Hot::enter`), from a `Cells` of the table in
        // `self.counts`, which once made is neither moved nor freed while
        // `self` lives, and whose cells start at `cells_base` and heap cells
        // at `heap_base`, one for each cell (`Counts::new`). `len` is not
        // 0 (`before` is below it), so `first` is in that table, not
        // `Cells::NONE`'s; `before` is below the function's length, so the
        // heap cell is one of the function's.
        let heap = unsafe {
            let index = first.offset_from(self.cells_base.load(Relaxed)) as usize + before as usize;
            &*self.heap_base.load(Relaxed).add(index)
        };
        add(&heap.words, moved_words);
        add(&heap.allocations, moved_allocations);
        add(&self.pending_words, moved_words);
        add(&self.pending_allocations, moved_allocations);
        self.heap_words.store(words, Relaxed);
        self.heap_allocations.store(allocations, Relaxed);
        self.words.store(Sample::movement(words, blocked), Relaxed);
        // SAFETY: as above, for `pc`.
        let cell = unsafe { &*first.add(pc as usize) };
        self.start(pc, cell, self.pending.load(Relaxed));
        true
    }

    /// Hands the heap's words and objects the allocations' glances took
    /// since the last slow stop to `shard`, for its calling context and
    /// totals ([`Shard::absorb_heap`]): the first thing of every slow stop
    /// of task 0, before the shard measures anything from its last stop.
    /// One test where there are none (a call-bound run's every hop).
    #[inline(always)]
    pub(crate) fn hand_heap_to(&self, shard: &mut Shard) {
        let words = self.pending_words.load(Relaxed);
        let allocations = self.pending_allocations.load(Relaxed);
        if words | allocations != 0 {
            self.hand_heap_cold(shard, words, allocations);
        }
    }

    #[cold]
    #[inline(never)]
    fn hand_heap_cold(&self, shard: &mut Shard, words: u64, allocations: u64) {
        shard.absorb_heap(words, allocations);
        self.pending_words.store(0, Relaxed);
        self.pending_allocations.store(0, Relaxed);
    }

    /// The heap's words and objects the allocations' glances took that no
    /// slow stop has handed to the shard yet: a report adds them to its
    /// copy of the shard, as it adds the pending count.
    pub(crate) fn pending_heap(&self) -> (u64, u64) {
        (
            self.pending_words.load(Relaxed),
            self.pending_allocations.load(Relaxed),
        )
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

    /// Keeps where `counts`' cells and heap cells start, and gives it back:
    /// called as the table is made, inside its `OnceLock`'s
    /// initialisation, so that any thread that finds the table made finds
    /// these stored. A box's cells stay where they are when the table
    /// moves into the lock.
    fn based(&self, counts: Counts) -> Counts {
        self.cells_base
            .store(counts.cells.as_ptr().cast_mut(), Relaxed);
        self.heap_base
            .store(counts.heap.as_ptr().cast_mut(), Relaxed);
        counts
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
            self.based(Counts::new(
                cells,
                program.functions.iter().map(|f| f.code.len()),
            ))
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
            self.based(Counts::new(cells, lengths.iter().copied()))
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
    pub(crate) fn moved(&self, pc: u32, found: Found<'_>, at: &Sample, node: u32) {
        self.settle(at, node);
        self.start(pc, found.cell, 0);
    }

    /// The second half of a slow stop at `at`: what the next stop must
    /// match to be fast, and the heap's counters the next allocation's
    /// glance takes its movement from.
    #[inline]
    pub(crate) fn settle(&self, at: &Sample, node: u32) {
        self.depth.store(at.depth, Relaxed);
        self.words.store(
            Sample::movement(at.allocated_words, at.blocked_nanos),
            Relaxed,
        );
        self.heap_words.store(at.allocated_words, Relaxed);
        self.heap_allocations.store(at.allocations, Relaxed);
        self.blocked.store(at.blocked_nanos, Relaxed);
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

    /// Every stretch start whose stretch's end the allocations' glances
    /// charged, with the words and objects charged.
    pub(crate) fn heap_counted(&self) -> Vec<HeapRow> {
        let Some(counts) = self.counts.get() else {
            return Vec::new();
        };
        let mut rows = Vec::new();
        for (f, cells) in counts.functions.iter().enumerate() {
            for (pc, heap) in counts.heap_of(cells).iter().enumerate() {
                let figures = (heap.words.load(Relaxed), heap.allocations.load(Relaxed));
                if figures != (0, 0) {
                    rows.push(((FunctionId(f as u32), pc as u32), figures));
                }
            }
        }
        rows
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

    /// Task 0's stop in `main` at `pc`, one frame deep, with the heap's
    /// counters and the blocked time at these.
    fn at(pc: u32, allocated_words: u64, allocations: u64, blocked_nanos: u64) -> Sample {
        Sample {
            task: 0,
            function: FunctionId(0),
            pc,
            depth: 1,
            allocated_words,
            allocations,
            blocked_nanos,
        }
    }

    #[test]
    fn a_stop_is_fast_only_in_the_frame_and_heap_of_the_stop_before() {
        let hot = Hot::default();
        hot.prepare(&program());
        let main = FunctionId(0);
        assert!(!hot.step(main, 0, 1, 0), "the first stop is slow");
        assert_eq!(hot.point(main, 0), hot.length(main, 0));
        hot.settle(&at(0, 0, 0, 0), 1);
        assert!(hot.step(main, 1, 1, 0));
        assert!(!hot.step(main, 1, 2, 0), "another depth is slow");
        assert!(!hot.step(main, 1, 1, 5), "a moved heap is slow");
        let length = u64::from(hot.length(main, 1));
        assert_eq!(hot.pending(), length, "pending counts instructions");
        assert_eq!(hot.take(), (main, 1, length as u32, length));
        assert_eq!(hot.counted(), vec![((main, 1), 1)]);
    }

    #[test]
    fn an_allocations_stop_in_the_frame_of_the_stop_before_is_taken_by_the_front_with_its_heap() {
        let hot = Hot::default();
        hot.prepare(&program());
        let main = FunctionId(0);
        hot.point(main, 0);
        hot.settle(&at(0, 10, 2, 7), 1);
        assert!(
            !hot.moved_glance(main, 1, 2, 14, 3, 7),
            "another depth is not taken"
        );
        assert!(
            !hot.moved_glance(main, 1, 1, 14, 3, 9),
            "nor a stop after a wait"
        );
        assert!(hot.moved_glance(main, 1, 1, 14, 3, 7));
        // The four words and the object go to the stretch the last stop
        // started, and wait for the shard's calling context.
        assert_eq!(hot.heap_counted(), vec![((main, 0), (4, 1))]);
        assert_eq!(hot.pending_heap(), (4, 1));
        assert_eq!(hot.pending(), u64::from(hot.length(main, 1)));
        assert_eq!(hot.counted(), vec![((main, 1), 1)]);
        // The next one measures from there, and the stop after it whose
        // heap did not move is a fast one.
        assert!(hot.moved_glance(main, 0, 1, 15, 4, 7));
        assert_eq!(
            hot.heap_counted(),
            vec![((main, 0), (4, 1)), ((main, 1), (1, 1))]
        );
        assert!(hot.step(main, 1, 1, Sample::movement(15, 7)));
    }
}
