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
use crate::cost::Cost;
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
    started: Cost,
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
}

/// What the calls made at one call site cost, callee included.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SiteCost {
    /// How many calls the site made.
    pub(crate) calls: u64,
    /// Everything that ran from each call's first instruction in the callee
    /// to its return, summed over the calls. A recursive call's cost is also
    /// inside the call that contains it, as in callgrind.
    pub(crate) inclusive: Cost,
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

/// One task's profile.
#[derive(Debug, Default, Clone)]
pub(crate) struct Shard {
    /// `table[function][pc]`: the flat, exact profile.
    table: Vec<Vec<Cost>>,
    /// Cells beyond the dense table's bounds.
    sparse: HashMap<(FunctionId, u32), Cost>,
    tree: Tree,
    stack: Vec<Frame>,
    last: Option<Previous>,
    /// Everything this task recorded, kept running so that a frame's
    /// inclusive cost is one subtraction.
    total: Cost,
    sites: Sites,
}

/// A copy of one task's profile, taken for a report.
#[cfg(feature = "reports")]
#[derive(Debug, Clone)]
pub(crate) struct TaskProfile {
    pub(crate) task: u32,
    /// Every instruction that ran, with its cost.
    pub(crate) rows: Vec<((FunctionId, u32), Cost)>,
    pub(crate) tree: Tree,
    pub(crate) total: Cost,
    /// Every call site, sorted, with the frames still open counted as if
    /// they returned now.
    pub(crate) sites: Vec<(Site, SiteCost)>,
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
            let moved = Cost {
                ran: 0,
                nanos: now.saturating_sub(before.when),
                words: at.allocated_words.saturating_sub(before.words),
                allocations: at.allocations.saturating_sub(before.allocations),
            };
            // Untimed, most stops between allocations move nothing.
            if !moved.is_empty() {
                self.cell(before.function, before.pc).add(&moved);
                self.tree.nodes[before.node as usize].cost.add(&moved);
                self.total.add(&moved);
            }
        }
        let first = self.last.is_none();
        let node = self.frame_for(at);
        if first && (at.allocated_words > 0 || at.allocations > 0) {
            // What the heap handed out before the task's first stop — the
            // program's constants, a spawned task's copied arguments — is
            // charged to its first instruction, so the profile's heap
            // totals are the heap's own counters.
            let before = Cost {
                ran: 0,
                nanos: 0,
                words: at.allocated_words,
                allocations: at.allocations,
            };
            self.cell(at.function, at.pc).add(&before);
            self.tree.nodes[node as usize].cost.add(&before);
            self.total.add(&before);
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
        });
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

    /// Puts `rows` in place of every instruction's cost, and makes the
    /// total their sum.
    pub(crate) fn replace_rows(&mut self, rows: Vec<((FunctionId, u32), Cost)>) {
        self.table
            .iter_mut()
            .for_each(|row| row.fill(Cost::default()));
        self.sparse.clear();
        let mut total = Cost::default();
        for ((function, pc), cost) in rows {
            self.cell(function, pc).add(&cost);
            total.add(&cost);
        }
        self.total = total;
    }

    /// Sets each calling-context node's own time to `time(node, cost)`.
    pub(crate) fn retime_nodes(&mut self, mut time: impl FnMut(NodeId, &Cost) -> u64) {
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
    fn cell(&mut self, function: FunctionId, pc: u32) -> &mut Cost {
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
    fn grow(&mut self, function: FunctionId, pc: u32) -> &mut Cost {
        let (f, p) = (function.index(), pc as usize);
        if f >= DENSE_FUNCTIONS || p >= DENSE_PCS {
            return self.sparse.entry((function, pc)).or_default();
        }
        if f >= self.table.len() {
            self.table.resize_with(f + 1, Vec::new);
        }
        let row = &mut self.table[f];
        if p >= row.len() {
            row.resize(p + 1, Cost::default());
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

    fn pop(&mut self) {
        if let Some(frame) = self.stack.pop()
            && let Some((caller, pc)) = frame.site
        {
            let site = self.sites.entry((caller, pc, frame.function)).or_default();
            site.calls += 1;
            site.inclusive.add(&self.total.since(&frame.started));
        }
    }

    /// Everything this task recorded.
    pub(crate) fn total(&self) -> Cost {
        self.total
    }

    /// Whether this task recorded anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.last.is_none()
    }

    /// Every instruction this task ran, with its cost.
    pub(crate) fn rows(&self) -> impl Iterator<Item = ((FunctionId, u32), Cost)> + '_ {
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
        let mut sites = self.sites.clone();
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
            Cost {
                ran: 1,
                nanos: 10,
                words: 5,
                allocations: 1
            }
        );
        assert_eq!(
            rows[1].1,
            Cost {
                ran: 1,
                nanos: 10,
                words: 0,
                allocations: 0
            }
        );
        // The last instruction is the one no later stop closes.
        assert_eq!(
            rows[2].1,
            Cost {
                ran: 1,
                nanos: 0,
                words: 0,
                allocations: 0
            }
        );
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
            Cost {
                ran: 2,
                nanos: 20,
                words: 3,
                allocations: 1
            }
        );
        assert_eq!(
            profile.sites,
            vec![(
                (FunctionId(0), 1, FunctionId(1)),
                SiteCost {
                    calls: 1,
                    inclusive: Cost {
                        ran: 2,
                        nanos: 20,
                        words: 3,
                        allocations: 1
                    }
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
