//! One task's share of a profile, and the hot path that fills it.
//!
//! Everything the profiler learns at a stop belongs to the task that
//! stopped: its heap counters are its own, its call stack is its own, and the
//! "previous stop" whose instruction a stop closes is the previous stop *of
//! that task* (two tasks interleave on two threads). So the state is sharded
//! by task, and a shard is only ever written by the one thread running its
//! task: the lock around it is never contended while a run is going, which
//! makes it one uncontended atomic each way, and for task 0 not even that:
//! its thread leases the lock for the whole run (see `crate::lease`).
//!
//! The flat costs live in a dense table indexed by function and then by
//! program counter, grown on demand, so recording a stop is two indexings
//! rather than the seed's two hash-map entries. The calling context is a
//! stack of frames beside the tree of [`crate::context`]; the common stop —
//! same depth, same function as the stop before — costs one comparison.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use cove_ir::program::FunctionId;

use crate::context::{NodeId, ROOT, Tree};
use crate::cost::{Charge, Cost};
use crate::profiler::Sample;

/// Function ids and program counters below these get a dense cell; a
/// program with more functions, or a function longer, than any compiler
/// makes is still profiled, in a map.
const DENSE_FUNCTIONS: usize = 1 << 20;
const DENSE_PCS: usize = 1 << 24;

/// A frame of the task's stack as the profiler sees it.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// What [`Sample::depth`] said while this frame ran.
    depth: usize,
    function: FunctionId,
    node: NodeId,
    /// The caller's function and the program counter of the `call` that
    /// pushed this frame, when the stop before it was that call.
    site: Option<(FunctionId, u32)>,
    /// The task's running total when the frame was pushed.
    started: Charge,
}

/// What the last stop saw, so that the next one can say what happened in
/// between.
#[derive(Debug, Clone, Copy)]
struct Previous {
    function: FunctionId,
    pc: u32,
    depth: usize,
    node: NodeId,
    when: u64,
    words: u64,
    allocations: u64,
    blocked: u64,
}

/// What the heap and the blocked time moved between two untimed stops:
/// the figures of a [`Charge`] such a stop can move besides the count.
#[derive(Debug, Clone, Copy)]
struct Moved {
    words: u64,
    allocations: u64,
    blocked: u64,
}

impl Moved {
    #[inline(always)]
    fn add_to(self, charge: &mut Charge) {
        charge.cost.words += self.words;
        charge.cost.allocations += self.allocations;
        charge.blocked += self.blocked;
    }
}

/// What the calls made at one call site cost, callee included.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SiteCost {
    /// How many calls the site made.
    pub(crate) calls: u64,
    /// Everything that ran from each call's first instruction in the callee
    /// to its return, summed over the calls. A recursive call's cost is also
    /// inside the call that contains it, as in callgrind.
    pub(crate) inclusive: Charge,
}

/// One call site: caller, the program counter of its `call`, the callee.
pub(crate) type Site = (FunctionId, u32, FunctionId);

/// A hasher for call sites: three small integers, hashed by multiplying.
///
/// The standard hasher resists collision attacks, which a profile of one's
/// own program does not need, and costs a hundred instructions a return in
/// a call-heavy run; this costs a few.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct SiteHasher(u64);

impl Hasher for SiteHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Call sites and what their calls cost.
type Sites = HashMap<Site, SiteCost, BuildHasherDefault<SiteHasher>>;

/// The cell of one `call` instruction in the dense site table: the callee
/// it reached first, and what those calls cost. A call instruction reaches
/// one callee, except an indirect one; a second callee of the same
/// instruction is kept in the map beside the table.
#[derive(Debug, Clone, Copy)]
struct SiteSlot {
    /// `u32::MAX` while the instruction has made no call.
    callee: FunctionId,
    cost: SiteCost,
}

impl Default for SiteSlot {
    fn default() -> SiteSlot {
        SiteSlot {
            callee: FunctionId(u32::MAX),
            cost: SiteCost::default(),
        }
    }
}

/// One task's profile.
#[derive(Debug, Default, Clone)]
pub(crate) struct Shard {
    /// `table[function][pc]`: the flat, exact profile.
    table: Vec<Vec<Charge>>,
    /// Cells beyond the dense table's bounds.
    sparse: HashMap<(FunctionId, u32), Charge>,
    tree: Tree,
    stack: Vec<Frame>,
    last: Option<Previous>,
    /// Everything this task recorded, kept running so that a frame's
    /// inclusive cost is one subtraction.
    total: Charge,
    /// `site_table[caller][pc]`: the call sites, found at a return by two
    /// indexings, as the flat costs are; a hash lookup there was a sixth
    /// of a call-heavy counting run.
    site_table: Vec<Vec<SiteSlot>>,
    /// The call sites the table has no cell for.
    sites: Sites,
    /// How many instructions this task waited in (stops whose blocked
    /// time had moved since the one before).
    waits: u64,
}

/// A copy of one task's profile, taken for a report.
#[cfg(feature = "reports")]
#[derive(Debug, Clone)]
pub(crate) struct TaskProfile {
    pub(crate) task: u32,
    /// Every instruction that ran, with its cost.
    pub(crate) rows: Vec<((FunctionId, u32), Charge)>,
    pub(crate) tree: Tree,
    pub(crate) total: Charge,
    /// Every call site, sorted, with the frames still open counted as if
    /// they returned now.
    pub(crate) sites: Vec<(Site, SiteCost)>,
    /// How many instructions the task waited in.
    pub(crate) waits: u64,
}

impl Shard {
    /// Records one stop whose first clock read answered `now`.
    ///
    /// The count goes to the instruction this stop is before; the time and
    /// the heap moved since the last stop go to the instruction that stop was
    /// before. The caller reads the clock again when this returns and hands
    /// it to [`Shard::stamp`].
    #[inline]
    pub(crate) fn record(&mut self, now: u64, at: &Sample) {
        if let Some(before) = self.last {
            // Time blocked is wall time inside the interval, not running
            // time: it is taken off the interval and kept apart.
            let blocked = at.blocked_nanos.saturating_sub(before.blocked);
            let moved = Charge {
                cost: Cost {
                    ran: 0,
                    nanos: now.saturating_sub(before.when).saturating_sub(blocked),
                    words: at.allocated_words.saturating_sub(before.words),
                    allocations: at.allocations.saturating_sub(before.allocations),
                },
                blocked,
            };
            if blocked > 0 {
                self.waits += 1;
            }
            // Untimed, most stops between allocations move nothing.
            if !moved.is_empty() {
                self.charge(before.function, before.pc, before.node, &moved);
            }
        }
        let first = self.last.is_none();
        let node = self.frame_for(at);
        if first && (at.allocated_words > 0 || at.allocations > 0) {
            // What the heap handed out before the task's first stop — the
            // program's constants, a spawned task's copied arguments — is
            // charged to its first instruction, so the profile's heap
            // totals are the heap's own counters.
            let before = Charge::from(Cost {
                ran: 0,
                nanos: 0,
                words: at.allocated_words,
                allocations: at.allocations,
            });
            self.charge(at.function, at.pc, node, &before);
        }
        self.cell(at.function, at.pc).ran += 1;
        self.tree.nodes[node as usize].cost.ran += 1;
        self.total.ran += 1;
        self.last = Some(Previous {
            function: at.function,
            pc: at.pc,
            depth: at.depth,
            node,
            when: now,
            words: at.allocated_words,
            allocations: at.allocations,
            blocked: at.blocked_nanos,
        });
    }

    /// Records a stop of a task the profiler is stopped at stretches for
    /// but keeps no lock-free front for (a spawned task, in the untimed
    /// modes): what moved since the last stop goes to the last instruction
    /// of the stretch that stop began (`length` tells a stretch's length
    /// from its start), and the count to the stretch this stop begins,
    /// whole. The rows count stretch starts, as the lock-free front does;
    /// the profiler spreads them over the stretches' instructions when it
    /// reports.
    pub(crate) fn record_stretch(&mut self, at: &Sample, length: impl Fn(FunctionId, u32) -> u32) {
        if let Some(last) = self.last {
            let end = last.pc + length(last.function, last.pc).saturating_sub(1);
            self.absorb(0, last.function, end);
        }
        self.record(0, at);
        self.extend_last(u64::from(length(at.function, at.pc).max(1)) - 1);
    }

    /// The slow stops a counting run makes most — the first stop in a
    /// callee, the first back in its caller, or the next in the same frame
    /// after an allocation — recorded without the general path's searches;
    /// `None`, with nothing changed, for any other stop, which the caller
    /// then records as [`Shard::absorb`], [`Shard::record`] and
    /// [`Shard::extend_last`] do.
    ///
    /// `pending`, `function` and `end` are what [`Shard::absorb`] takes;
    /// `length` is the length of the stretch `at` starts. What this records
    /// is exactly what those three would (the tests feed both ways the same
    /// stops and compare); it only knows in advance which of their branches
    /// the stop takes. Untimed, so no time moves.
    #[inline]
    pub(crate) fn hop(
        &mut self,
        pending: u64,
        function: FunctionId,
        end: u32,
        at: &Sample,
        length: u32,
    ) -> Option<NodeId> {
        enum Shape {
            Same,
            Call,
            Return,
        }
        let last = self.last?;
        let n = self.stack.len();
        let top = *self.stack.last()?;
        if top.depth != last.depth || top.function != function || at.depth == 0 {
            return None;
        }
        let shape = if at.depth == last.depth && at.function == function {
            Shape::Same
        } else if at.depth == last.depth + 1 {
            Shape::Call
        } else if at.depth + 1 == last.depth
            && n >= 2
            && self.stack[n - 2].depth == at.depth
            && self.stack[n - 2].function == at.function
        {
            Shape::Return
        } else {
            return None;
        };
        self.take_in_moved(pending, &last, function, end, at);
        let node = match shape {
            Shape::Same => top.node,
            Shape::Call => {
                let node = self.tree.enter(top.node, at.function);
                self.stack.push(Frame {
                    depth: at.depth,
                    function: at.function,
                    node,
                    site: Some((function, end)),
                    started: self.total,
                });
                node
            }
            Shape::Return => {
                self.pop();
                self.stack[n - 2].node
            }
        };
        self.cell(at.function, at.pc).ran += 1;
        let length = u64::from(length.max(1));
        self.tree.nodes[node as usize].cost.ran += length;
        self.total.ran += length;
        self.last = Some(Previous {
            function: at.function,
            pc: at.pc,
            depth: at.depth,
            node,
            when: 0,
            words: at.allocated_words,
            allocations: at.allocations,
            blocked: at.blocked_nanos,
        });
        Some(node)
    }

    /// A call's first stop (`CALL`) or a return's first stop back in the
    /// caller, which the dispatch loop vouched for
    /// ([`Glance`](cove_runtime::vm::debug::Glance)): recorded as
    /// [`Shard::hop`] records it, without finding the shape and with no heap
    /// movement to charge, since neither a call nor a return allocates.
    /// `None`, with nothing changed, when the shard's frames do not match
    /// the shape; the caller then makes it an ordinary stop.
    ///
    /// `at_function`, `at_pc` and `depth` are where the stop is; the rest
    /// is what [`Shard::hop`] takes, of which a return reads only `pending`
    /// (its call site is on the frame it pops). Unlike [`Shard::hop`], this counts
    /// nothing of the stretch the stop starts: the lock-free front counts
    /// it as one of its own, in the frame this returns.
    #[allow(clippy::too_many_arguments)] // The stop's fields, unpacked.
    #[inline]
    pub(crate) fn hop_glanced<const CALL: bool>(
        &mut self,
        pending: u64,
        function: FunctionId,
        end: u32,
        at_function: FunctionId,
        at_pc: u32,
        depth: usize,
    ) -> Option<NodeId> {
        // Only the two fields the shape needs are read from the last stop,
        // and the frame below the top is read once, before any change.
        let last = self.last.as_ref()?;
        let (last_depth, last_node) = (last.depth, last.node);
        let n = self.stack.len();
        // Every stop leaves the top frame the last stop's (`frame_for`, and
        // each short way keeps it so): not tested again here.
        debug_assert!(self.stack.last().is_some_and(|top| top.depth == last_depth
            && top.function == last.function
            && (!CALL || top.function == function)));
        let top_node = last_node;
        let caller_node = if CALL {
            if depth != last_depth + 1 {
                return None;
            }
            ROOT
        } else {
            let below = self.stack.get(n.wrapping_sub(2))?;
            if depth + 1 != last_depth || below.depth != depth || below.function != at_function {
                return None;
            }
            below.node
        };
        // The total is read whole before its count is written, and the
        // frame takes the copy: read back whole just after the count's
        // store, the total was a wider load over a narrower store, which
        // the processor cannot forward, and the call's stop waited for the
        // store to reach the cache (a third of its time under `perf`).
        let mut total = self.total;
        total.ran += pending;
        self.total = total;
        self.tree.nodes[last_node as usize].cost.ran += pending;
        let node = if CALL {
            let node = self.tree.enter(top_node, at_function);
            self.stack.push(Frame {
                depth,
                function: at_function,
                node,
                site: Some((function, end)),
                started: total,
            });
            node
        } else {
            self.pop_at(total);
            caller_node
        };
        // The last stop was there at the start, and nothing since took it.
        let last = self.last.as_mut()?;
        last.function = at_function;
        last.pc = at_pc;
        last.depth = depth;
        last.node = node;
        Some(node)
    }

    /// The first stop after a stretch that ended in an instruction that may
    /// allocate ([`StretchEnd::Other`](cove_ir::op::StretchEnd::Other)),
    /// in the frame of the stop before, which the caller checked: recorded
    /// as [`Shard::hop`] records a stop of its `Same` shape, the heap's
    /// movement charged to the allocating instruction (`function`'s `end`,
    /// the last of the stretch), but without the shape's search. `None`,
    /// with nothing changed, when the shard's last frame is not that
    /// frame; the caller then makes it an ordinary stop.
    ///
    /// Like [`Shard::hop_glanced`], this counts nothing of the stretch the
    /// stop starts: the lock-free front counts it as one of its own.
    #[inline]
    pub(crate) fn moved_glanced(
        &mut self,
        pending: u64,
        function: FunctionId,
        end: u32,
        at: &Sample,
    ) -> Option<NodeId> {
        let last = self.last?;
        let top = self.stack.last()?;
        if top.depth != last.depth
            || top.function != function
            || at.depth != last.depth
            || at.function != function
        {
            return None;
        }
        self.take_in_moved(pending, &last, function, end, at);
        if let Some(last) = self.last.as_mut() {
            last.pc = at.pc;
            last.words = at.allocated_words;
            last.allocations = at.allocations;
            last.blocked = at.blocked_nanos;
        }
        Some(last.node)
    }

    /// Takes in `pending` fast stops in the frame of the `last` stop, and
    /// charges what the heap and the blocked time moved between it and
    /// `at` to `function`'s `end`, the instruction that moved them: the
    /// untimed short ways' common first half.
    #[inline(always)]
    fn take_in_moved(
        &mut self,
        pending: u64,
        last: &Previous,
        function: FunctionId,
        end: u32,
        at: &Sample,
    ) {
        self.total.ran += pending;
        self.tree.nodes[last.node as usize].cost.ran += pending;
        let moved = Moved {
            words: at.allocated_words.saturating_sub(last.words),
            allocations: at.allocations.saturating_sub(last.allocations),
            blocked: at.blocked_nanos.saturating_sub(last.blocked),
        };
        if moved.blocked > 0 {
            self.waits += 1;
        }
        if moved.words | moved.allocations | moved.blocked != 0 {
            self.charge_moved(function, end, last.node, moved);
        }
    }

    /// [`Shard::charge`] for what an untimed stop can move besides the
    /// count: three figures added in three places, not five, and no time.
    #[inline(always)]
    fn charge_moved(&mut self, function: FunctionId, pc: u32, node: NodeId, moved: Moved) {
        moved.add_to(self.cell(function, pc));
        moved.add_to(&mut self.tree.nodes[node as usize].cost);
        moved.add_to(&mut self.total);
    }

    /// Adds `cost` to one instruction, the calling-context node it ran in,
    /// and the task's total: where every figure that moved between two
    /// stops goes.
    #[inline]
    fn charge(&mut self, function: FunctionId, pc: u32, node: NodeId, cost: &Charge) {
        self.cell(function, pc).add(cost);
        self.tree.nodes[node as usize].cost.add(cost);
        self.total.add(cost);
    }

    /// Takes in `pending` stops the lock-free front ([`crate::hot`]) counted
    /// since this shard last recorded: all in the frame of the last stop,
    /// the last of them at `function`'s `pc`, which is therefore the
    /// instruction whatever moved since belongs to.
    #[inline]
    pub(crate) fn absorb(&mut self, pending: u64, function: FunctionId, pc: u32) {
        if let Some(last) = self.last.as_mut() {
            self.total.ran += pending;
            self.tree.nodes[last.node as usize].cost.ran += pending;
            last.function = function;
            last.pc = pc;
        }
    }

    /// Takes in the heap's `words` and `allocations` the lock-free front's
    /// allocation glances ([`crate::hot`]) took since this shard last
    /// recorded: all in the frame of the last stop, so its calling context
    /// and the totals have them, and the next stop's movement is measured
    /// from past them. Their instructions are not charged here: the front
    /// keeps them, and a report adds them in ([`Shard::charge_heap`]).
    #[inline]
    pub(crate) fn absorb_heap(&mut self, words: u64, allocations: u64) {
        if words == 0 && allocations == 0 {
            return;
        }
        if let Some(last) = self.last.as_mut() {
            let moved = Moved {
                words,
                allocations,
                blocked: 0,
            };
            moved.add_to(&mut self.total);
            moved.add_to(&mut self.tree.nodes[last.node as usize].cost);
            last.words += words;
            last.allocations += allocations;
        }
    }

    /// Adds heap figures to `function`'s `pc` alone, not to its calling
    /// context or the totals: for a report, the instruction's share of
    /// what [`Shard::absorb_heap`] took in.
    pub(crate) fn charge_heap(
        &mut self,
        function: FunctionId,
        pc: u32,
        words: u64,
        allocations: u64,
    ) {
        Moved {
            words,
            allocations,
            blocked: 0,
        }
        .add_to(self.cell(function, pc));
    }

    /// Where the last stop was: its function and pc.
    pub(crate) fn last_stop(&self) -> Option<(FunctionId, u32)> {
        self.last.map(|last| (last.function, last.pc))
    }

    /// The calling-context node of the last stop.
    pub(crate) fn node(&self) -> NodeId {
        self.last.map_or(ROOT, |last| last.node)
    }

    /// Adds `extra` instructions to the last stop's frame and the total:
    /// the rest of a stretch whose first instruction that stop counted.
    pub(crate) fn extend_last(&mut self, extra: u64) {
        if let Some(last) = self.last {
            self.total.ran += extra;
            self.tree.nodes[last.node as usize].cost.ran += extra;
        }
    }

    /// Takes `unran` instructions back from the last stop's frame and the
    /// total: the tail of a stretch a fault kept from running.
    pub(crate) fn extend_last_back(&mut self, unran: u64) {
        if let Some(last) = self.last {
            self.total.ran = self.total.ran.saturating_sub(unran);
            let node = &mut self.tree.nodes[last.node as usize].cost;
            node.ran = node.ran.saturating_sub(unran);
        }
    }

    /// Puts `rows` in place of every instruction's cost, and makes the
    /// total their sum.
    pub(crate) fn replace_rows(&mut self, rows: Vec<((FunctionId, u32), Charge)>) {
        self.table
            .iter_mut()
            .for_each(|row| row.fill(Charge::default()));
        self.sparse.clear();
        let mut total = Charge::default();
        for ((function, pc), cost) in rows {
            self.cell(function, pc).add(&cost);
            total.add(&cost);
        }
        self.total = total;
    }

    /// Sets each calling-context node's own time to `time(node, cost)`.
    pub(crate) fn retime_nodes(&mut self, mut time: impl FnMut(NodeId, &Charge) -> u64) {
        for (id, node) in self.tree.nodes.iter_mut().enumerate() {
            node.cost.nanos = time(id as NodeId, &node.cost);
        }
    }

    /// The last clock read of a stop: where the next instruction's interval
    /// starts.
    #[inline]
    pub(crate) fn stamp(&mut self, when: u64) {
        if let Some(last) = self.last.as_mut() {
            last.when = when;
        }
    }

    /// The table's cell for one instruction: two indexings once the table
    /// has grown to the program's shape, which it does in the first few
    /// stops of each function.
    #[inline(always)]
    fn cell(&mut self, function: FunctionId, pc: u32) -> &mut Charge {
        let (f, p) = (function.index(), pc as usize);
        if self.table.get(f).is_none_or(|row| p >= row.len()) {
            return self.grow(function, pc);
        }
        &mut self.table[f][p]
    }

    /// Grows the table to hold `function`'s `pc`, or, for an id or pc far
    /// beyond any program's (a sample fed by hand, say), keeps the cell in
    /// a map beside the table rather than allocating gigabytes for it.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, function: FunctionId, pc: u32) -> &mut Charge {
        let (f, p) = (function.index(), pc as usize);
        if f >= DENSE_FUNCTIONS || p >= DENSE_PCS {
            return self.sparse.entry((function, pc)).or_default();
        }
        if f >= self.table.len() {
            self.table.resize_with(f + 1, Vec::new);
        }
        let row = &mut self.table[f];
        if p >= row.len() {
            row.resize(p + 1, Charge::default());
        }
        &mut row[p]
    }

    /// The calling-context node this stop runs in.
    #[inline]
    fn frame_for(&mut self, at: &Sample) -> NodeId {
        let depth = at.depth.max(1);
        if let Some(top) = self.stack.last()
            && top.depth == depth
            && top.function == at.function
        {
            return top.node;
        }
        self.reframe(at.function, depth)
    }

    /// The stack changed: frames returned, a frame was pushed, or both.
    #[cold]
    fn reframe(&mut self, function: FunctionId, depth: usize) -> NodeId {
        while self.stack.last().is_some_and(|top| top.depth > depth) {
            self.pop();
        }
        if let Some(top) = self.stack.last()
            && top.depth == depth
        {
            if top.function == function {
                return top.node;
            }
            // Same depth, another function: the frame was replaced without a
            // stop at a lower depth (a second run from the entry, say).
            self.pop();
        }
        let parent = self.stack.last().map_or(ROOT, |top| top.node);
        let site = match (self.last, self.stack.last()) {
            (Some(before), Some(caller))
                if before.depth + 1 == depth && before.function == caller.function =>
            {
                Some((before.function, before.pc))
            }
            _ => None,
        };
        let node = self.tree.enter(parent, function);
        self.stack.push(Frame {
            depth,
            function,
            node,
            site,
            started: self.total,
        });
        node
    }

    /// Pops the top frame and, if a call pushed it, charges the call to its
    /// site. Inline: a glanced return is one call of the slow stop, and a
    /// call of this inside it cost about a tenth of it (fib's counting run
    /// 12.54 M → 12.18 M native instructions, binary_trees −2.1%,
    /// spectral_norm −2.3%).
    #[inline(always)]
    fn pop(&mut self) {
        self.pop_at(self.total);
    }

    /// [`Shard::pop`] with the task's running total given: the glanced
    /// return's, which has it in hand (see `hop_glanced` for why it is not
    /// read back).
    #[inline(always)]
    fn pop_at(&mut self, total: Charge) {
        if let Some(frame) = self.stack.pop()
            && let Some((caller, pc)) = frame.site
        {
            let inclusive = total.gained_since(&frame.started);
            let site = self.site(caller, pc, frame.function);
            site.calls += 1;
            site.inclusive.add(&inclusive);
        }
    }

    /// The cost of the calls `caller`'s `pc` made to `callee`: a cell of the
    /// dense table when that instruction has one for this callee.
    #[inline(always)]
    fn site(&mut self, caller: FunctionId, pc: u32, callee: FunctionId) -> &mut SiteCost {
        let (f, p) = (caller.index(), pc as usize);
        let hit = self
            .site_table
            .get(f)
            .and_then(|row| row.get(p))
            .is_some_and(|slot| slot.callee == callee);
        if hit {
            // SAFETY: `hit` found the row and the slot just now, and
            // nothing changed the table since.
            return unsafe {
                &mut self
                    .site_table
                    .get_unchecked_mut(f)
                    .get_unchecked_mut(p)
                    .cost
            };
        }
        self.site_cold(caller, pc, callee)
    }

    /// A site's first call, a second callee of one instruction, or one
    /// beyond the dense table's bounds.
    #[cold]
    #[inline(never)]
    fn site_cold(&mut self, caller: FunctionId, pc: u32, callee: FunctionId) -> &mut SiteCost {
        let (f, p) = (caller.index(), pc as usize);
        if f >= DENSE_FUNCTIONS || p >= DENSE_PCS {
            return self.sites.entry((caller, pc, callee)).or_default();
        }
        if f >= self.site_table.len() {
            self.site_table.resize_with(f + 1, Vec::new);
        }
        let row = &mut self.site_table[f];
        if p >= row.len() {
            row.resize(p + 1, SiteSlot::default());
        }
        if row[p].callee == FunctionId(u32::MAX) {
            row[p].callee = callee;
        }
        if row[p].callee == callee {
            return &mut self.site_table[f][p].cost;
        }
        self.sites.entry((caller, pc, callee)).or_default()
    }

    /// Every call site that made a call, and its cost.
    #[cfg(feature = "reports")]
    fn all_sites(&self) -> Sites {
        let mut sites = self.sites.clone();
        for (f, row) in self.site_table.iter().enumerate() {
            for (pc, slot) in row.iter().enumerate() {
                if slot.callee != FunctionId(u32::MAX) {
                    let site = sites
                        .entry((FunctionId(f as u32), pc as u32, slot.callee))
                        .or_default();
                    site.calls += slot.cost.calls;
                    site.inclusive.add(&slot.cost.inclusive);
                }
            }
        }
        sites
    }

    /// Everything this task recorded.
    pub(crate) fn total(&self) -> Charge {
        self.total
    }

    /// Whether this task recorded anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.last.is_none()
    }

    /// Every instruction this task ran, with its cost.
    pub(crate) fn rows(&self) -> impl Iterator<Item = ((FunctionId, u32), Charge)> + '_ {
        let sparse = self.sparse.iter().map(|(at, cost)| (*at, *cost));
        self.table
            .iter()
            .enumerate()
            .flat_map(|(f, row)| {
                row.iter()
                    .enumerate()
                    .filter(|(_, c)| !c.is_empty())
                    .map(move |(pc, c)| ((FunctionId(f as u32), pc as u32), *c))
            })
            .chain(sparse)
    }

    /// A copy for a report.
    #[cfg(feature = "reports")]
    pub(crate) fn snapshot(&self, task: u32) -> TaskProfile {
        let mut sites = self.all_sites();
        for frame in &self.stack {
            if let Some((caller, pc)) = frame.site {
                let site = sites.entry((caller, pc, frame.function)).or_default();
                site.calls += 1;
                site.inclusive.add(&self.total.since(&frame.started));
            }
        }
        let mut sites: Vec<(Site, SiteCost)> = sites.into_iter().collect();
        sites.sort_by_key(|(site, _)| *site);
        TaskProfile {
            task,
            rows: self.rows().collect(),
            tree: self.tree.clone(),
            total: self.total,
            sites,
            waits: self.waits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(function: u32, pc: u32, depth: usize, words: u64, allocations: u64) -> Sample {
        Sample {
            task: 0,
            function: FunctionId(function),
            pc,
            depth,
            allocated_words: words,
            allocations,
            blocked_nanos: 0,
        }
    }

    /// Feeds stops ten nanoseconds apart, stamping each as the profiler would.
    fn feed(shard: &mut Shard, stops: &[Sample]) {
        let mut now = 0;
        for stop in stops {
            shard.record(now, stop);
            shard.stamp(now + 1);
            now += 11;
        }
    }

    /// The length of the stretch a made-up program starts at `pc`.
    fn length(pc: u32) -> u32 {
        pc % 3 + 1
    }

    /// Records `stops` as an untimed profiler's slow stops do: the short
    /// way where [`Shard::hop`] takes it (when `hop`), the general way
    /// otherwise.
    fn feed_untimed(shard: &mut Shard, stops: &[Sample], hop: bool) {
        let mut previous: Option<(FunctionId, u32)> = None;
        for stop in stops {
            let (function, end) =
                previous.map_or((FunctionId(0), 0), |(f, pc)| (f, pc + length(pc) - 1));
            let pending = u64::from(stop.pc % 2);
            let hopped = hop
                && shard
                    .hop(pending, function, end, stop, length(stop.pc))
                    .is_some();
            if !hopped {
                shard.absorb(pending, function, end);
                shard.record(0, stop);
                shard.extend_last(u64::from(length(stop.pc)) - 1);
            }
            previous = Some((stop.function, stop.pc));
        }
    }

    #[test]
    fn the_short_way_of_a_slow_stop_records_exactly_what_the_general_way_does() {
        // A made-up run: calls, returns, allocations, frames replaced and
        // returns of several frames at once, chosen by a fixed generator.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut stack = vec![0_u32];
        let (mut words, mut allocations) = (0_u64, 0_u64);
        let mut stops = Vec::new();
        for _ in 0..5_000 {
            match next(10) {
                0..=2 if stack.len() < 40 => stack.push(next(6) as u32),
                3..=4 if stack.len() > 1 => {
                    stack.pop();
                }
                5 if stack.len() > 3 => {
                    stack.truncate(stack.len() - 2);
                }
                6 => {
                    words += 1 + next(9);
                    allocations += 1;
                }
                7 => {
                    let top = stack.len() - 1;
                    stack[top] = next(6) as u32;
                }
                _ => {}
            }
            let function = *stack.last().unwrap();
            stops.push(at(
                function,
                next(12) as u32,
                stack.len(),
                words,
                allocations,
            ));
        }
        let (mut short, mut general) = (Shard::default(), Shard::default());
        feed_untimed(&mut short, &stops, true);
        feed_untimed(&mut general, &stops, false);
        assert_eq!(format!("{short:?}"), format!("{general:?}"));
        assert!(short.total().ran > 5_000 && short.total().words > 0);
        assert!(short.tree.nodes.len() > 10, "the run made a real tree");
    }

    #[test]
    fn time_and_heap_belong_to_the_instruction_before_the_stop_that_saw_them() {
        let mut shard = Shard::default();
        feed(
            &mut shard,
            &[at(0, 0, 1, 0, 0), at(0, 1, 1, 5, 1), at(0, 2, 1, 5, 1)],
        );
        let rows: Vec<_> = shard.rows().collect();
        assert_eq!(
            rows[0].1,
            Charge::from(Cost {
                ran: 1,
                nanos: 10,
                words: 5,
                allocations: 1,
            })
        );
        assert_eq!(
            rows[1].1,
            Charge::from(Cost {
                ran: 1,
                nanos: 10,
                words: 0,
                allocations: 0,
            })
        );
        // The last instruction is the one no later stop closes.
        assert_eq!(
            rows[2].1,
            Charge::from(Cost {
                ran: 1,
                nanos: 0,
                words: 0,
                allocations: 0,
            })
        );
    }

    #[test]
    fn time_blocked_goes_to_the_instruction_that_waited_and_is_taken_off_its_interval() {
        let mut shard = Shard::default();
        let waited = |pc: u32, blocked: u64| Sample {
            blocked_nanos: blocked,
            ..at(0, pc, 1, 0, 0)
        };
        // Stops 10 ns apart as `feed` makes them, but the instruction at
        // pc 1 (a `join`, say) spent 1,000 ns of a longer interval parked.
        shard.record(0, &waited(0, 0));
        shard.stamp(1);
        shard.record(11, &waited(1, 0));
        shard.stamp(12);
        shard.record(1_022, &waited(2, 1_000));
        shard.stamp(1_023);
        shard.record(1_033, &waited(3, 1_000));
        let rows: Vec<_> = shard.rows().collect();
        assert_eq!((rows[0].1.nanos, rows[0].1.blocked), (10, 0));
        assert_eq!(
            (rows[1].1.nanos, rows[1].1.blocked),
            (10, 1_000),
            "the wait is kept apart from the running time"
        );
        assert_eq!((rows[2].1.nanos, rows[2].1.blocked), (10, 0));
        assert_eq!(shard.total().blocked, 1_000);
        assert_eq!(shard.snapshot(0).waits, 1);
        assert_eq!(shard.tree.nodes[1].cost.blocked, 1_000);
    }

    #[test]
    fn a_call_and_its_return_make_a_child_in_the_tree_and_a_site_with_inclusive_cost() {
        let mut shard = Shard::default();
        feed(
            &mut shard,
            &[
                at(0, 0, 1, 0, 0),
                at(0, 1, 1, 0, 0), // call f1
                at(1, 0, 2, 0, 0),
                at(1, 1, 2, 3, 1), // return
                at(0, 2, 1, 3, 1),
            ],
        );
        let profile = shard.snapshot(0);
        assert_eq!(profile.tree.nodes.len(), 3);
        let callee = &profile.tree.nodes[2];
        assert_eq!(callee.function, FunctionId(1));
        assert_eq!(callee.calls, 1);
        assert_eq!(
            callee.cost,
            Charge::from(Cost {
                ran: 2,
                nanos: 20,
                words: 3,
                allocations: 1,
            })
        );
        assert_eq!(
            profile.sites,
            vec![(
                (FunctionId(0), 1, FunctionId(1)),
                SiteCost {
                    calls: 1,
                    inclusive: Charge::from(Cost {
                        ran: 2,
                        nanos: 20,
                        words: 3,
                        allocations: 1,
                    })
                }
            )]
        );
    }

    #[test]
    fn a_frame_still_open_counts_its_site_as_if_it_returned_now() {
        let mut shard = Shard::default();
        feed(
            &mut shard,
            &[at(0, 4, 1, 0, 0), at(2, 0, 2, 0, 0), at(2, 1, 2, 0, 0)],
        );
        let profile = shard.snapshot(0);
        assert_eq!(profile.sites.len(), 1);
        assert_eq!(profile.sites[0].0, (FunctionId(0), 4, FunctionId(2)));
        assert_eq!(profile.sites[0].1.inclusive.ran, 2);
    }
}
