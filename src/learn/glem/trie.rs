//! The configuration trie GLEM's mining and fitting share: the configurations of one
//! region as a prefix tree, walked in a few instructions per active configuration.

use crate::eval::glem::MAX_SLOTS;

/// A configuration of one region as (region position, digit) pairs, positions
/// increasing.
pub(super) type AtomPath = Vec<(u8, u8)>;

/// Sentinel: no child / no configuration.
pub(super) const NONE: u32 = u32::MAX;

/// A region's contents as a slot mask: bit `5j + d` for digit `d` on region position
/// `j` (at most 40 bits).
#[inline(always)]
pub(super) fn content_mask(digits: &[u8; MAX_SLOTS], squares: &[u8]) -> u64 {
    let mut mask = 0u64;
    for (j, &s) in squares.iter().enumerate() {
        mask |= 1 << (5 * j + digits[s as usize - 1] as usize);
    }
    mask
}

/// Builds a [`Trie`]: nodes with dense child tables, easy to insert into.
pub(super) struct TrieBuilder {
    k: usize,
    /// First region position a child of the node may use (one past the node's last).
    first: Vec<u8>,
    /// Offset of the node's child table in `children`, or `NONE` if it has no child.
    /// Entry `(j − first)·5 + digit` is the child adding `digit` on position `j`.
    base: Vec<u32>,
    pub(super) config: Vec<u32>,
    /// Child tables; 0 means no child (the root is never a child).
    children: Vec<u32>,
}

impl TrieBuilder {
    pub(super) fn new(k: usize) -> TrieBuilder {
        TrieBuilder {
            k,
            first: vec![0],
            base: vec![NONE],
            config: vec![NONE],
            children: Vec::new(),
        }
    }

    /// The node of `path` ((position, digit) pairs, positions increasing), created if
    /// missing.
    pub(super) fn insert(&mut self, path: &[(u8, u8)]) -> usize {
        let mut node = 0usize;
        for &(j, d) in path {
            let first = self.first[node] as usize;
            debug_assert!((j as usize) >= first && (j as usize) < self.k && d < 5);
            if self.base[node] == NONE {
                self.base[node] = self.children.len() as u32;
                self.children
                    .resize(self.children.len() + (self.k - first) * 5, 0);
            }
            let slot = self.base[node] as usize + (j as usize - first) * 5 + d as usize;
            if self.children[slot] == 0 {
                self.children[slot] = self.first.len() as u32;
                self.first.push(j + 1);
                self.base.push(NONE);
                self.config.push(NONE);
            }
            node = self.children[slot] as usize;
        }
        node
    }

    /// The compact tree (children of a node contiguous, breadth first) and the new
    /// index of every builder node.
    pub(super) fn finish(&self) -> (Trie, Vec<u32>) {
        let n = self.first.len();
        let mut order = Vec::with_capacity(n);
        let mut new_index = vec![NONE; n];
        order.push(0usize);
        new_index[0] = 0;
        let mut nodes = Vec::with_capacity(n);
        let mut head = 0;
        while head < order.len() {
            let old = order[head];
            head += 1;
            let first = self.first[old] as u64;
            let mut slots = 0u64;
            let child0 = order.len() as u32;
            if self.base[old] != NONE {
                let base = self.base[old] as usize;
                let width = (self.k - first as usize) * 5;
                for (slot, &child) in self.children[base..base + width].iter().enumerate() {
                    if child != 0 {
                        slots |= 1 << slot;
                        new_index[child as usize] = order.len() as u32;
                        order.push(child as usize);
                    }
                }
            }
            nodes.push(TrieNode {
                mask: slots | first << FIRST_SHIFT,
                child0,
                config: self.config[old],
            });
        }
        (Trie { nodes }, new_index)
    }
}

/// Where a node's first child position is kept in [`TrieNode::mask`].
const FIRST_SHIFT: u32 = 56;
const SLOT_BITS: u64 = (1 << 40) - 1;

#[derive(Clone, Copy, Debug)]
struct TrieNode {
    /// Bit `s` set: a child on slot `s = (j − first)·5 + d`; bits 56.. hold `first`.
    mask: u64,
    /// Index of the first child; the others follow in slot order.
    child0: u32,
    /// The configuration the node is (an id chosen by the builder), or `NONE`.
    config: u32,
}

/// Configurations of one region as a prefix tree over the region's squares (in region
/// order): a node is a set of atoms, its children add one atom on a later square. Nodes
/// need not be configurations themselves. Walking the configurations active for some
/// contents costs a few instructions per active node: the active children of a node
/// are its child mask ANDed with the contents' slot mask ([`content_mask`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Trie {
    nodes: Vec<TrieNode>,
}

impl Trie {
    /// Calls `f(node)` for every non-root node whose atoms all hold in the contents
    /// `content` ([`content_mask`]), parents before children.
    #[inline]
    /// Nodes in the trie (ids run from 0, the root).
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(super) fn walk<F: FnMut(usize)>(&self, node: usize, content: u64, f: &mut F) {
        let n = self.nodes[node];
        let first = (n.mask >> FIRST_SHIFT) as u32;
        let slots = n.mask & SLOT_BITS;
        let mut active = slots & (content >> (5 * first));
        while active != 0 {
            let s = active.trailing_zeros();
            let child = n.child0 as usize + (slots & ((1u64 << s) - 1)).count_ones() as usize;
            f(child);
            self.walk(child, content, f);
            active &= active - 1;
        }
    }

    /// Calls `f(config)` for every configuration active for `content`.
    #[inline]
    pub(super) fn for_each_active<F: FnMut(u32)>(&self, content: u64, f: &mut F) {
        self.walk(0, content, &mut |node| {
            let c = self.nodes[node].config;
            if c != NONE {
                f(c);
            }
        });
    }

    /// First region position of `node`'s children.
    pub(super) fn first(&self, node: usize) -> usize {
        (self.nodes[node].mask >> FIRST_SHIFT) as usize
    }
}

/// Positions per chunk of parallel work (a fixed size: results never depend on the
/// number of threads).
pub(super) const CHUNK: usize = 4096;
