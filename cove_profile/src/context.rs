//! The calling-context tree: what each *path* of calls cost, not only each
//! function.
//!
//! A flat profile says `fib` ran 40 M instructions; the tree says 39 M of
//! them were `main → fib → fib → …` and a million `main → warm → fib`. A node
//! is one function reached by one path of calls from the task's root, and
//! holds the cost of the instructions that ran *in that function itself* on
//! that path (its self cost); a node's inclusive cost is its subtree's.
//!
//! Children are keyed by the function alone, not by the call site, so a
//! recursion is a chain as deep as the recursion (one node a level) rather
//! than a tree as wide as the calls it made: `fib` calls itself from two
//! sites, and keying by site would make 2ⁿ nodes for depth n. Call sites are
//! kept separately, per site, in [`crate::shard`].
//!
//! The tree is a flat `Vec` of nodes addressed by index, and children are a
//! short list searched linearly: a node is entered only when a call pushes a
//! frame, and most functions call a handful of others. Each node also keeps
//! the child it entered last, tested before the list: a path's calls mostly
//! repeat the callee before (a loop calling one function, a recursion), and
//! the test is two loads and a compare where the search, through the
//! list's inline-or-spilled check, was a few times that on every call.

use cove_ir::program::FunctionId;
use smallvec::SmallVec;

use crate::cost::Charge;

/// The index of a node in a [`Tree`].
pub(crate) type NodeId = u32;

/// One function on one path of calls.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The function this node is.
    #[cfg_attr(not(feature = "reports"), allow(dead_code))] // Read by the reports.
    pub(crate) function: FunctionId,
    /// The node that called it; the root's parent is itself.
    #[cfg_attr(not(feature = "reports"), allow(dead_code))] // Read by the reports.
    pub(crate) parent: NodeId,
    /// How many frames of it this path pushed.
    pub(crate) calls: u64,
    /// What ran in this function itself, on this path.
    pub(crate) cost: Charge,
    /// The functions it called, and their nodes.
    pub(crate) children: SmallVec<[(FunctionId, NodeId); 4]>,
    /// The child entered last, or none (the root's own id) before the first.
    last: (FunctionId, NodeId),
}

/// A task's calling-context tree. Node 0 is a root that is no function: the
/// task's entry functions (usually one) are its children.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
}

/// The root of every tree.
pub(crate) const ROOT: NodeId = 0;

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            nodes: vec![Node {
                function: FunctionId(u32::MAX),
                parent: ROOT,
                calls: 0,
                cost: Charge::default(),
                children: SmallVec::new(),
                last: (FunctionId(u32::MAX), ROOT),
            }],
        }
    }
}

impl Tree {
    /// The child of `parent` that is `function`, made if this path has not
    /// called it before, with one more call counted.
    #[inline(always)]
    pub(crate) fn enter(&mut self, parent: NodeId, function: FunctionId) -> NodeId {
        let (last, id) = self.nodes[parent as usize].last;
        // The root is nobody's child, so `id` is a child only once set.
        if last == function && id != ROOT {
            self.nodes[id as usize].calls += 1;
            return id;
        }
        self.enter_searching(parent, function)
    }

    /// [`Tree::enter`] for a callee other than the one the path called
    /// last.
    #[inline(never)]
    fn enter_searching(&mut self, parent: NodeId, function: FunctionId) -> NodeId {
        let found = self.nodes[parent as usize]
            .children
            .iter()
            .find(|(f, _)| *f == function)
            .map(|(_, n)| *n);
        let id = match found {
            Some(id) => id,
            None => {
                let id = self.nodes.len() as NodeId;
                self.nodes.push(Node {
                    function,
                    parent,
                    calls: 0,
                    cost: Charge::default(),
                    children: SmallVec::new(),
                    last: (FunctionId(u32::MAX), ROOT),
                });
                self.nodes[parent as usize].children.push((function, id));
                id
            }
        };
        self.nodes[parent as usize].last = (function, id);
        self.nodes[id as usize].calls += 1;
        id
    }

    /// Every node's inclusive cost: its own and its whole subtree's.
    ///
    /// A child is always made after its parent, so one pass from the last
    /// node to the first adds every subtree into its parent in time.
    #[cfg(feature = "reports")]
    pub(crate) fn inclusive(&self) -> Vec<Charge> {
        let mut all: Vec<Charge> = self.nodes.iter().map(|n| n.cost).collect();
        for id in (1..self.nodes.len()).rev() {
            let parent = self.nodes[id].parent as usize;
            let below = all[id];
            all[parent].add(&below);
        }
        all
    }

    /// The functions from the task's entry down to `node`, outermost first.
    /// O(depth); for every node at once, see [`Tree::capped_paths`].
    #[cfg(test)]
    pub(crate) fn path(&self, mut node: NodeId) -> Vec<FunctionId> {
        let mut path = Vec::new();
        while node != ROOT {
            let n = &self.nodes[node as usize];
            path.push(n.function);
            node = n.parent;
        }
        path.reverse();
        path
    }

    /// Every node's path, outermost first, cut as folded stacks cut theirs:
    /// a path deeper than `max` frames keeps its outermost `max - 2`, then
    /// `None` for the frames left out, then its innermost frame. The root's
    /// path is empty.
    ///
    /// Each path is made from its caller's, none is longer than `max`, and
    /// the nodes whose cut paths are alike (the levels of a recursion
    /// deeper than `max`) share one, so the time and the size are linear
    /// in the number of nodes, and a report that merges a shared path's
    /// nodes into one sample is as large as the distinct paths: whole paths
    /// of a recursion n deep would hold n²/2 frames, and one path a level
    /// `max` frames each.
    #[cfg(feature = "reports")]
    pub(crate) fn capped_paths(&self, max: usize) -> CappedPaths {
        let head = max.saturating_sub(2);
        let mut depth = vec![0_usize; self.nodes.len()];
        // For each node deeper than `head`, its ancestor at depth `head`.
        let mut cut = vec![ROOT; self.nodes.len()];
        let mut paths = CappedPaths {
            distinct: vec![Vec::new()],
            of: vec![0; self.nodes.len()],
        };
        // The shared path of the nodes below a cut, by the ancestor at the
        // cut and the innermost function.
        let mut below_cut: std::collections::HashMap<(NodeId, FunctionId), u32> =
            std::collections::HashMap::new();
        for id in 1..self.nodes.len() {
            let node = &self.nodes[id];
            let parent = node.parent as usize;
            // A child is always made after its parent (see `inclusive`).
            if parent >= id {
                continue;
            }
            let d = depth[parent] + 1;
            depth[id] = d;
            cut[id] = match d {
                d if d <= head => ROOT,
                d if d == head + 1 => node.parent,
                _ => cut[parent],
            };
            paths.of[id] = if d <= max {
                let mut path = paths.distinct[paths.of[parent] as usize].clone();
                path.push(Some(node.function));
                paths.push(path)
            } else {
                let key = (cut[id], node.function);
                match below_cut.get(&key) {
                    Some(&shared) => shared,
                    None => {
                        let mut path = paths.distinct[paths.of[cut[id] as usize] as usize].clone();
                        path.push(None);
                        path.push(Some(node.function));
                        let shared = paths.push(path);
                        below_cut.insert(key, shared);
                        shared
                    }
                }
            };
        }
        paths
    }
}

/// The calling-context tree's paths cut to a length (see
/// [`Tree::capped_paths`]): each distinct path once, and each node's.
#[cfg(feature = "reports")]
pub(crate) struct CappedPaths {
    /// The distinct paths, the root's (empty) first.
    distinct: Vec<Vec<Option<FunctionId>>>,
    /// Each node's path, as an index into `distinct`.
    of: Vec<u32>,
}

#[cfg(feature = "reports")]
impl CappedPaths {
    /// `node`'s path, and the index its alike nodes share.
    pub(crate) fn of(&self, node: usize) -> (u32, &[Option<FunctionId>]) {
        let index = self.of.get(node).copied().unwrap_or(0);
        (index, &self.distinct[index as usize])
    }

    /// How many distinct paths there are.
    #[cfg(test)]
    pub(crate) fn distinct(&self) -> usize {
        self.distinct.len()
    }

    fn push(&mut self, path: Vec<Option<FunctionId>>) -> u32 {
        self.distinct.push(path);
        (self.distinct.len() - 1) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::Cost;

    fn cost(ran: u64) -> Charge {
        Charge::from(Cost {
            ran,
            ..Cost::default()
        })
    }

    #[test]
    fn a_recursion_is_a_chain_one_node_a_level() {
        let mut tree = Tree::default();
        let main = tree.enter(ROOT, FunctionId(0));
        let a = tree.enter(main, FunctionId(1));
        let b = tree.enter(a, FunctionId(1));
        let again = tree.enter(main, FunctionId(1));
        assert_eq!(a, again);
        assert_eq!(tree.nodes[a as usize].calls, 2);
        assert_eq!(
            tree.path(b),
            vec![FunctionId(0), FunctionId(1), FunctionId(1)]
        );
    }

    #[test]
    fn a_path_deeper_than_the_cap_keeps_its_head_a_gap_and_its_innermost_frame() {
        let mut tree = Tree::default();
        let mut node = tree.enter(ROOT, FunctionId(0));
        for _ in 0..10 {
            node = tree.enter(node, FunctionId(1));
        }
        let paths = tree.capped_paths(5);
        let f = |n: u32| Some(FunctionId(n));
        assert_eq!(paths.of(node as usize).1, [f(0), f(1), f(1), None, f(1)]);
        assert_eq!(paths.of(3).1, [f(0), f(1), f(1)], "a shallow path is whole");
        assert!((0..tree.nodes.len()).all(|n| paths.of(n).1.len() <= 5));
        let whole: Vec<_> = tree.path(3).into_iter().map(Some).collect();
        assert_eq!(paths.of(3).1, whole);
    }

    #[test]
    fn the_levels_below_the_cap_share_one_path() {
        let mut tree = Tree::default();
        let mut node = tree.enter(ROOT, FunctionId(0));
        for _ in 0..1_000 {
            node = tree.enter(node, FunctionId(1));
        }
        let paths = tree.capped_paths(5);
        // The root's, and those of depths 1 to 5, and one for every level
        // deeper.
        assert_eq!(paths.distinct(), 7);
        assert_eq!(paths.of(6), paths.of(node as usize));
        assert_ne!(paths.of(5).0, paths.of(6).0);
    }

    #[test]
    fn a_nodes_inclusive_cost_is_its_subtrees() {
        let mut tree = Tree::default();
        let main = tree.enter(ROOT, FunctionId(0));
        let f = tree.enter(main, FunctionId(1));
        let g = tree.enter(f, FunctionId(2));
        tree.nodes[main as usize].cost = cost(1);
        tree.nodes[f as usize].cost = cost(10);
        tree.nodes[g as usize].cost = cost(100);
        let inclusive = tree.inclusive();
        assert_eq!(inclusive[main as usize].ran, 111);
        assert_eq!(inclusive[f as usize].ran, 110);
        assert_eq!(inclusive[g as usize].ran, 100);
        assert_eq!(inclusive[ROOT as usize].ran, 111);
    }
}
