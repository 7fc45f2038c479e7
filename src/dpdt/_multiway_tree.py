"""The fitted multiway tree of BRANCHES and the greedy multiway classifiers, as flat arrays."""

import functools

import numpy as np

from ._io import register_type
from ._tree import check_fractions

# The arrays a model file holds for a multiway tree (see _io).
_MULTIWAY_ARRAYS = ("feature", "edge_begin", "edge_category", "edge_child", "value",
                    "n_node_samples")


@register_type("MultiwayTree")
class MultiwayTree:
    """A fitted multiway tree stored as flat arrays.

    Node ``k`` tests feature ``feature[k]`` (-1 for a leaf). Its children are the edges
    ``e`` in ``range(edge_begin[k], edge_begin[k + 1])``: a sample whose category code for
    that feature is ``edge_category[e]`` goes to node ``edge_child[e]``. A sample whose
    category has no edge (unseen in that branch during training) stops at node ``k`` and is
    predicted by that node's majority class. Node 0 is the root; nodes are in preorder.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    feature : ndarray of shape (node_count,)
        Feature tested by each node, -1 for leaves.
    edge_begin : ndarray of shape (node_count + 1,)
        Start of each node's edges.
    edge_category, edge_child : ndarray of shape (n_edges,)
        Category code and child node of each edge.
    value : ndarray of shape (node_count, n_classes)
        Weighted class fractions of the training samples reaching each node.
    n_node_samples : ndarray of shape (node_count,)
        Training samples reaching each node.
    n_splits : int
        Number of internal nodes.
    n_leaves : int
        Number of leaves.
    max_depth : int
        Depth of the tree.
    """

    def __init__(self, arrays):
        self.feature = np.asarray(arrays["feature"], dtype=np.int64)
        self.edge_begin = np.asarray(arrays["edge_begin"], dtype=np.int64)
        self.edge_category = np.asarray(arrays["edge_category"], dtype=np.int64)
        self.edge_child = np.asarray(arrays["edge_child"], dtype=np.int64)
        counts = np.asarray(arrays["value"], dtype=np.float64)
        totals = counts.sum(axis=1, keepdims=True)
        self.value = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
        self.n_node_samples = np.asarray(arrays["n_node_samples"], dtype=np.int64)
        self.node_count = int(self.feature.shape[0])
        self.n_splits = int(np.sum(self.feature >= 0))
        self.n_leaves = self.node_count - self.n_splits

    def _encode(self, encoder, where):
        return {name: encoder.array(getattr(self, name), where) for name in _MULTIWAY_ARRAYS}

    @classmethod
    def _decode(cls, node, decoder, where):
        arrays = {name: decoder.array(node.get(name), f"{where}.{name}",
                                      "f" if name == "value" else "iu")
                  for name in _MULTIWAY_ARRAYS}
        decoder.expect(all(a.ndim >= 1 for a in arrays.values()),
                       f"{where}: arrays of inconsistent shapes")
        n = arrays["feature"].shape[0]
        begin, child = arrays["edge_begin"], arrays["edge_child"]
        decoder.expect(n >= 1 and arrays["value"].ndim == 2 and arrays["value"].shape[0] == n
                       and arrays["n_node_samples"].shape == (n,) and begin.shape == (n + 1,)
                       and child.shape == arrays["edge_category"].shape and begin[0] == 0
                       and np.all(np.diff(begin) >= 0) and begin[-1] == child.shape[0],
                       f"{where}: arrays of inconsistent shapes")
        parents = np.repeat(np.arange(n), np.diff(begin))
        decoder.expect(np.all(child > parents) and np.all(child < n)
                       and np.array_equal(np.sort(child), np.arange(1, n)),
                       f"{where}: the edges do not form a tree")
        category = arrays["edge_category"]
        decoder.expect(np.all(category >= 0) and np.all(arrays["feature"][parents] >= 0)
                       and len(np.unique(np.stack([parents, category]), axis=1).T) == len(child),
                       f"{where}: bad edge categories")
        check_fractions(arrays["value"], decoder, f"{where}.value")
        decoder.expect(np.all(arrays["n_node_samples"] >= 1),
                       f"{where}: nodes of no training sample")
        tree = cls({**arrays, "value": arrays["value"]})
        tree.value = arrays["value"]   # the saved fractions, not renormalised
        return tree

    @functools.cached_property
    def max_depth(self):
        # On demand: a Python loop over the nodes is a fair share of a small fit.
        depth = np.zeros(self.node_count, dtype=np.int64)
        for node in range(self.node_count):
            children = self.edge_child[self.edge_begin[node]:self.edge_begin[node + 1]]
            depth[children] = depth[node] + 1
        return int(depth.max()) if self.node_count else 0

    def children(self, node):
        """Return the (category, child) pairs of a node."""
        edges = slice(self.edge_begin[node], self.edge_begin[node + 1])
        return list(zip(self.edge_category[edges].tolist(), self.edge_child[edges].tolist(),
                        strict=True))

    def apply(self, codes):
        """Return the node where each row of integer ``codes`` stops (-1 codes are unknown)."""
        # Edges sorted by the key (node, category): each step is a binary search, in memory
        # linear in the tree (a node x category table would be quadratic).
        width = int(self.edge_category.max(initial=0)) + 1
        parents = np.repeat(np.arange(self.node_count), np.diff(self.edge_begin))
        keys = parents * width + self.edge_category
        order = np.argsort(keys, kind="stable")
        keys, targets = keys[order], self.edge_child[order]
        node = np.zeros(codes.shape[0], dtype=np.int64)
        active = np.flatnonzero(self.feature[node] >= 0) if keys.size else node[:0]
        while active.size:
            category = codes[active, self.feature[node[active]]].astype(np.int64)
            known = (category >= 0) & (category < width)
            key = node[active] * width + np.where(known, category, 0)
            at = np.minimum(np.searchsorted(keys, key), keys.size - 1)
            moved = known & (keys[at] == key)
            node[active[moved]] = targets[at[moved]]
            active = active[moved]
            active = active[self.feature[node[active]] >= 0]
        return node
