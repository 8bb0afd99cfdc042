"""java.util.HashMap and HashSet iteration order, and the Java hash codes Kafka's assignor uses.

Theory of operation
-------------------
Kafka's SimpleAssignor never sorts anything: who is visited first is decided by the iteration
order of HashMaps and HashSets. To reproduce its output bit for bit (impl/simple_assignor/kafka_compat)
this module emulates exactly the parts of OpenJDK 17's ``java.util.HashMap`` that decide that
order, and nothing else:

* A table of ``capacity`` buckets (a power of two). A key with Java hash code ``h`` lives in
  bucket ``spread(h) & (capacity - 1)`` where ``spread(h) = h ^ (h >>> 16)``. Iteration visits
  buckets in ascending order and each bucket's chain from head to tail.
* ``put``/``add`` (and so ``putAll``, ``addAll``, ``HashSet(Collection)``) append a new key at
  the TAIL of its chain, then resize when the size exceeds the threshold
  ``(int)(capacity * 0.75)``. ``computeIfAbsent`` inserts a new key at the HEAD of its chain and
  does not resize afterwards: it resizes *before* looking, whenever the size already exceeds the
  threshold (even when the key turns out to be present).
* A resize doubles the capacity; every chain is split into its low and high halves keeping the
  relative order of its keys. Removing a key from a plain chain unlinks it and reorders nothing.
* A chain that reaches 8 keys (``put``: 9 after the append; ``computeIfAbsent``: 8) in a table
  smaller than 64 buckets makes the table double instead. In a table of 64 or more it becomes a
  *tree bin* (:class:`_TreeBin`): a red-black tree ordered by (signed spread hash, then
  ``compareTo``) whose nodes ALSO keep a doubly linked list, and iteration walks that list. The
  list starts in chain order; ``treeify`` and every insertion or ``Map.remove`` then move the
  tree's root to the front of the list, and an insertion links the new key right after its
  parent in the tree. So the order depends on the tree's shape, which is modelled node for node
  (rotations and recolourings included). A resize splits a tree's list into its low and high
  halves in order; a half of 6 keys or fewer becomes a plain chain again, a larger half is
  re-treeified unless it is the whole bin (then it moves untouched, as does a single-node bin).
  ``Map.remove`` turns a tree that looks too small (no right child, no left child or no
  left-left grandchild at the root) back into a plain chain; an iterator's ``remove`` never
  does and moves no node in the list.
* Ties: two distinct keys with equal hash in one tree are ordered by ``compareTo`` when their
  class implements ``Comparable`` of itself (String, Integer, Kafka's Uuid: pass ``compare``).
  Otherwise (a record such as TopicIdPartition) Java falls back to ``System.identityHashCode``,
  which changes with JVM flags and allocation history: that order is not defined (on the same
  input, Kafka's own assignor was seen answering differently under different JVM flags; see
  tests/data/java_tree_bins_observed.json), and :class:`TreeBinError` is raised instead of
  guessing. It needs two keys with equal 32-bit hash codes in one tree bin, which Strings,
  Integers and Uuids never cause (they are Comparable) and TopicIdPartitions only with crafted
  topic ids (``31 * uuidHash + partition`` equal for two topics).
* Capacity: ``new HashMap()`` allocates 16 buckets on first insert; ``new HashMap(c)`` allocates
  ``tableSizeFor(c)`` (the smallest power of two >= c, 1 for c <= 1);
  ``new HashSet(collection)`` uses ``max((int)(size / .75f) + 1, 16)``; Kafka's
  ``AssignorHelpers.newHashMap(n)``/``newHashSet(n)`` ask for ``(int)((n + 1) / 0.75f + 1)``.

Keys are ordinary hashable Python values; the Java hash code of a key comes from a function
given to the collection (``string_hash``, ``integer_hash``, ``uuid_hash``,
``topic_id_partition_hash`` below), Java's ``compareTo`` from an optional ``compare``
(``string_compare``, ``integer_compare``, ``uuid_compare``), and key equality is Python equality.

Every rule here was checked against JDK 17 by running the same operation sequences through
java.util.HashMap and comparing iteration orders (tests/cover/test_assignor_kafka_compat.py and
tests/cover/test_java_tree_bins.py keep examples observed on the JVM). The tree-bin code follows
``HashMap.TreeNode`` (treeify, putTreeVal, removeTreeNode, split, balanceInsertion,
balanceDeletion, moveRootToFront) in OpenJDK's java/util/HashMap.java.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from groupspec.types import GroupspecError

K = TypeVar("K")
V = TypeVar("V")

DEFAULT_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
TREEIFY_THRESHOLD = 8
UNTREEIFY_THRESHOLD = 6
MIN_TREEIFY_CAPACITY = 64

Hasher = Callable[[K], int]
#: Java's ``a.compareTo(b)``; only its sign is used.
Comparator = Callable[[K, K], int]


class TreeBinError(GroupspecError, NotImplementedError):
    """Java would order two keys of a tree bin by identity hash code, which no model can predict.

    Raised only for distinct keys with equal hash codes whose class is not Comparable (no
    ``compare`` was given); the collection is left as it was before the call.
    """


# ---------------------------------------------------------------------------------------------
# Java integer and float arithmetic
# ---------------------------------------------------------------------------------------------


def int32(value: int) -> int:
    """Wrap ``value`` to a signed 32-bit Java int."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def int64(value: int) -> int:
    """Wrap ``value`` to a signed 64-bit Java long."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value >= 1 << 63 else value


def spread(h: int) -> int:
    """HashMap.hash: ``h ^ (h >>> 16)``, as an unsigned 32-bit value ready for masking."""
    u = h & 0xFFFFFFFF
    return u ^ (u >> 16)


def table_size_for(cap: int) -> int:
    """HashMap.tableSizeFor: the smallest power of two >= ``cap`` (1 for cap <= 1)."""
    if cap <= 1:
        return 1
    return min(1 << (cap - 1).bit_length(), MAXIMUM_CAPACITY)


def f32(value: float) -> float:
    """Round a double to the nearest float32, as a Java float operation would.

    One float32 operation (+, -, *, /) on float32 operands equals the same operation done in
    double and then rounded to float32, so float32 arithmetic is emulated that way.
    """
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


def _float_int(value: float) -> int:
    """Java's (int) cast of a float: truncation toward zero (inputs here are small and >= 0)."""
    return int(value)


def helper_capacity(num_mappings: int) -> int:
    """The argument AssignorHelpers.newHashMap/newHashSet pass: ``(int)(((n + 1) / 0.75f) + 1)``.

    Evaluated in float32 like Java: ``(n + 1)`` is an int promoted to float, divided by 0.75f.
    """
    quotient = f32(f32(num_mappings + 1) / 0.75)
    return _float_int(f32(quotient + 1.0))


def hash_set_copy_capacity(size: int) -> int:
    """The capacity HashSet(Collection) asks for: ``max((int)(size / .75f) + 1, 16)``."""
    return max(_float_int(f32(f32(size) / 0.75)) + 1, DEFAULT_CAPACITY)


def _threshold(capacity: int) -> int:
    return _float_int(f32(capacity * 0.75))


# ---------------------------------------------------------------------------------------------
# Java hash codes
# ---------------------------------------------------------------------------------------------


def string_hash(s: str) -> int:
    """String.hashCode: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units, as an int."""
    h = 0
    data = s.encode("utf-16-be", "surrogatepass")
    for k in range(0, len(data), 2):
        h = (31 * h + (data[k] << 8 | data[k + 1])) & 0xFFFFFFFF
    return int32(h)


def integer_hash(i: int) -> int:
    """Integer.hashCode: the value itself."""
    return int32(i)


def uuid_bits(uuid_text: str) -> tuple[int, int]:
    """A UUID string as Kafka's Uuid (most and least significant bits, signed 64-bit)."""
    value = int(uuid_text.replace("-", ""), 16)
    return int64(value >> 64), int64(value)


def uuid_hash(uuid_text: str) -> int:
    """org.apache.kafka.common.Uuid.hashCode: ``x = msb ^ lsb; (int)(x >> 32) ^ (int)x``."""
    msb, lsb = uuid_bits(uuid_text)
    x = msb ^ lsb
    return int32((x >> 32) ^ int32(x))


def topic_id_partition_hash(uuid_hash_code: int, partition: int) -> int:
    """server.common.TopicIdPartition (a record) hashCode on JDK 17: ``31*topicId + partition``."""
    return int32(31 * uuid_hash_code + partition)


def string_compare(a: str, b: str) -> int:
    """The sign of String.compareTo: UTF-16 code units in lexicographic order.

    Python compares code points, which disagrees with Java once a supplementary character
    (a surrogate pair in UTF-16) meets a BMP character at or above U+E000.
    """
    if a.isascii() and b.isascii():
        return (a > b) - (a < b)
    ua, ub = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return (ua > ub) - (ua < ub)


def integer_compare(a: int, b: int) -> int:
    """The sign of Integer.compareTo."""
    return (a > b) - (a < b)


def uuid_compare(a: str, b: str) -> int:
    """The sign of Kafka's Uuid.compareTo: signed most significant bits, then signed least."""
    ua, ub = uuid_bits(a), uuid_bits(b)
    return (ua > ub) - (ua < ub)


# ---------------------------------------------------------------------------------------------
# Tree bins (HashMap.TreeNode)
# ---------------------------------------------------------------------------------------------


class _Node(Generic[K]):
    """A TreeNode: a red-black tree node that is also an entry of its bin's linked list."""

    __slots__ = ("hash", "key", "left", "next", "parent", "prev", "red", "right")

    def __init__(self, key: K, h: int) -> None:
        self.key = key
        self.hash = h  # the spread hash as a signed int: the tree compares it signed
        self.next: _Node[K] | None = None
        self.prev: _Node[K] | None = None
        self.parent: _Node[K] | None = None
        self.left: _Node[K] | None = None
        self.right: _Node[K] | None = None
        self.red = False


def _rotate_left(root: _Node[K], p: _Node[K]) -> _Node[K]:
    r = p.right
    if r is None:
        return root
    p.right = rl = r.left
    if rl is not None:
        rl.parent = p
    r.parent = pp = p.parent
    if pp is None:
        root = r
        r.red = False
    elif pp.left is p:
        pp.left = r
    else:
        pp.right = r
    r.left = p
    p.parent = r
    return root


def _rotate_right(root: _Node[K], p: _Node[K]) -> _Node[K]:
    lc = p.left
    if lc is None:
        return root
    p.left = lr = lc.right
    if lr is not None:
        lr.parent = p
    lc.parent = pp = p.parent
    if pp is None:
        root = lc
        lc.red = False
    elif pp.right is p:
        pp.right = lc
    else:
        pp.left = lc
    lc.right = p
    p.parent = lc
    return root


def _balance_insertion(root: _Node[K], x: _Node[K]) -> _Node[K]:
    """Red-black fix-up after linking ``x``; returns the root (HashMap's own variant)."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        if xp is xpp.left:
            uncle = xpp.right
            if uncle is not None and uncle.red:
                uncle.red = xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.right:
                x = xp
                root = _rotate_left(root, x)
                xp = x.parent
                xpp = None if xp is None else xp.parent
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_right(root, xpp)
        else:
            uncle = xpp.left
            if uncle is not None and uncle.red:
                uncle.red = xp.red = False
                xpp.red = True
                x = xpp
                continue
            if x is xp.left:
                x = xp
                root = _rotate_right(root, x)
                xp = x.parent
                xpp = None if xp is None else xp.parent
            if xp is not None:
                xp.red = False
                if xpp is not None:
                    xpp.red = True
                    root = _rotate_left(root, xpp)


def _is_red(node: _Node[K] | None) -> bool:
    return node is not None and node.red


def _balance_deletion(root: _Node[K], x: _Node[K] | None) -> _Node[K]:
    """Red-black fix-up after unlinking, from the replacement ``x``; returns the root."""
    while True:
        if x is None or x is root:
            return root
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        if x.red:
            x.red = False
            return root
        if xp.left is x:
            sib = xp.right
            if sib is not None and sib.red:
                sib.red = False
                xp.red = True
                root = _rotate_left(root, xp)
                xp = x.parent
                sib = None if xp is None else xp.right
            if sib is None:
                x = xp
                continue
            if not _is_red(sib.right) and not _is_red(sib.left):
                sib.red = True
                x = xp
                continue
            if not _is_red(sib.right):
                if sib.left is not None:
                    sib.left.red = False
                sib.red = True
                root = _rotate_right(root, sib)
                xp = x.parent
                sib = None if xp is None else xp.right
            if sib is not None:
                sib.red = False if xp is None else xp.red
                if sib.right is not None:
                    sib.right.red = False
            if xp is not None:
                xp.red = False
                root = _rotate_left(root, xp)
            x = root
        else:
            sib = xp.left
            if sib is not None and sib.red:
                sib.red = False
                xp.red = True
                root = _rotate_right(root, xp)
                xp = x.parent
                sib = None if xp is None else xp.left
            if sib is None:
                x = xp
                continue
            if not _is_red(sib.left) and not _is_red(sib.right):
                sib.red = True
                x = xp
                continue
            if not _is_red(sib.left):
                if sib.right is not None:
                    sib.right.red = False
                sib.red = True
                root = _rotate_left(root, sib)
                xp = x.parent
                sib = None if xp is None else xp.left
            if sib is not None:
                sib.red = False if xp is None else xp.red
                if sib.left is not None:
                    sib.left.red = False
            if xp is not None:
                xp.red = False
                root = _rotate_right(root, xp)
            x = root


class _TreeBin(Generic[K]):
    """One treeified bucket. Iterating it walks the linked list, which is Java's order.

    ``head`` is the bucket's first list node (``tab[index]``); the tree root is found by walking
    parent links from it, as Java does, because an iterator's remove can leave the root elsewhere.
    """

    def __init__(self, nodes: list[_Node[K]], compare: Comparator[K] | None) -> None:
        """Link ``nodes`` into a list in the given order and treeify them (HashMap.treeify)."""
        self._compare = compare
        self.nodes: dict[K, _Node[K]] = {}
        prev: _Node[K] | None = None
        for node in nodes:
            node.prev, node.next = prev, None
            if prev is not None:
                prev.next = node
            prev = node
            self.nodes[node.key] = node
        self.head: _Node[K] | None = nodes[0]
        root: _Node[K] | None = None
        for x in nodes:
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
                continue
            p = root
            while True:
                d = self._direction(x.key, x.hash, p)
                child = p.left if d <= 0 else p.right
                if child is None:
                    x.parent = p
                    if d <= 0:
                        p.left = x
                    else:
                        p.right = x
                    root = _balance_insertion(root, x)
                    break
                p = child
        assert root is not None
        self._move_root_to_front(root)

    def __iter__(self) -> Iterator[K]:
        node = self.head
        while node is not None:
            yield node.key
            node = node.next

    def __len__(self) -> int:
        return len(self.nodes)

    def _direction(self, key: K, h: int, p: _Node[K]) -> int:
        """Where ``key`` goes relative to ``p``: by signed hash, then compareTo, else refused."""
        if p.hash > h:
            return -1
        if p.hash < h:
            return 1
        if self._compare is not None:
            d = self._compare(key, p.key)
            if d != 0:
                return d
        raise TreeBinError(
            f"keys {key!r} and {p.key!r} have equal hash {h} in a tree bin and are not Comparable: "
            "Java orders them by System.identityHashCode")

    def _root(self) -> _Node[K]:
        node = self.head
        assert node is not None
        while node.parent is not None:
            node = node.parent
        return node

    def _move_root_to_front(self, root: _Node[K]) -> None:
        first = self.head
        if root is first:
            return
        rn, rp = root.next, root.prev
        if rn is not None:
            rn.prev = rp
        if rp is not None:
            rp.next = rn
        if first is not None:
            first.prev = root
        root.next = first
        root.prev = None
        self.head = root

    def insert(self, key: K, h: int) -> None:
        """putTreeVal for a key known to be absent: linked after its tree parent, then balanced.

        Raises TreeBinError before changing anything when the position needs an identity hash.
        """
        root = self._root()
        p = root
        while True:
            d = self._direction(key, h, p)
            child = p.left if d <= 0 else p.right
            if child is None:
                break
            p = child
        x = _Node(key, h)
        after = p.next
        x.next = after
        if d <= 0:
            p.left = x
        else:
            p.right = x
        p.next = x
        x.parent = x.prev = p
        if after is not None:
            after.prev = x
        self.nodes[key] = x
        self._move_root_to_front(_balance_insertion(root, x))

    def remove(self, key: K, *, movable: bool) -> list[K] | None:
        """removeTreeNode; returns the plain chain the bin turns into, or None if still a tree.

        ``movable`` False is an iterator's remove: the list is only unlinked, never reordered.
        """
        p = self.nodes.pop(key)
        root = first = self.head
        assert root is not None
        succ, pred = p.next, p.prev
        if pred is None:
            self.head = first = succ
        else:
            pred.next = succ
        if succ is not None:
            succ.prev = pred
        if first is None:
            return []
        while root.parent is not None:
            root = root.parent
        if movable and (root.right is None or root.left is None or root.left.left is None):
            return list(self)  # too small: Java untreeifies the remaining list as it is
        replacement, root = self._unlink_from_tree(p, root)
        new_root = root if p.red else _balance_deletion(root, replacement)
        if replacement is p:
            pp = p.parent
            p.parent = None
            if pp is not None:
                if p is pp.left:
                    pp.left = None
                elif p is pp.right:
                    pp.right = None
        if movable:
            self._move_root_to_front(new_root)
        return None

    @staticmethod
    def _unlink_from_tree(p: _Node[K], root: _Node[K]) -> tuple[_Node[K], _Node[K]]:
        """Swap ``p`` with its successor when it has two children, then splice it out.

        Tree links are swapped rather than keys because list neighbours point at the nodes.
        Returns the node the deletion fix-up starts from (``p`` itself when it is a leaf, which
        is detached only after the fix-up) and the root afterwards.
        """
        pl, pr = p.left, p.right
        if pl is not None and pr is not None:
            s = pr
            while s.left is not None:
                s = s.left
            s.red, p.red = p.red, s.red
            sr, pp = s.right, p.parent
            if s is pr:
                p.parent = s
                s.right = p
            else:
                sp = s.parent
                p.parent = sp
                if sp is not None:
                    if s is sp.left:
                        sp.left = p
                    else:
                        sp.right = p
                s.right = pr
                pr.parent = s
            p.left = None
            p.right = sr
            if sr is not None:
                sr.parent = p
            s.left = pl
            pl.parent = s
            s.parent = pp
            if pp is None:
                root = s
            elif p is pp.left:
                pp.left = s
            else:
                pp.right = s
            replacement = sr if sr is not None else p
        else:
            replacement = pl if pl is not None else pr if pr is not None else p
        if replacement is not p:
            pp = p.parent
            replacement.parent = pp
            if pp is None:
                root = replacement
                replacement.red = False
            elif p is pp.left:
                pp.left = replacement
            else:
                pp.right = replacement
            p.left = p.right = p.parent = None
        return replacement, root

    def split(self, bit: int) -> tuple[Bin[K], Bin[K]]:
        """TreeNode.split on a resize: the low and high bins, each a chain, a tree, or empty."""
        lo: list[_Node[K]] = []
        hi: list[_Node[K]] = []
        node = self.head
        while node is not None:
            (hi if node.hash & bit else lo).append(node)
            node = node.next
        return self._half(lo, hi), self._half(hi, lo)

    def _half(self, mine: list[_Node[K]], other: list[_Node[K]]) -> Bin[K]:
        if not mine:
            return []
        if len(mine) <= UNTREEIFY_THRESHOLD:
            return [n.key for n in mine]
        if not other:
            return self  # the whole bin moves: Java keeps the tree as it is
        return _TreeBin(mine, self._compare)


#: A table slot: a plain chain (head first) or a tree bin.
Bin = list[K] | _TreeBin[K]


# ---------------------------------------------------------------------------------------------
# HashMap and HashSet
# ---------------------------------------------------------------------------------------------


class JavaHashMap(Generic[K, V]):
    """A java.util.HashMap that keeps the bucket/chain/tree structure deciding iteration order.

    ``initial_capacity`` None is ``new HashMap()``; an int ``c`` is ``new HashMap(c)``.
    ``compare`` is the key class's ``compareTo`` when it implements ``Comparable`` of itself,
    None when it does not (ties in a tree bin then raise TreeBinError).
    """

    def __init__(self, hasher: Hasher[K], initial_capacity: int | None = None, *,
                 compare: Comparator[K] | None = None) -> None:
        self._hasher = hasher
        self._compare = compare
        self._capacity = DEFAULT_CAPACITY if initial_capacity is None else table_size_for(
            initial_capacity)
        self._table: list[Bin[K]] | None = None
        self._values: dict[K, V] = {}
        self._spread: dict[K, int] = {}

    # -- structure ------------------------------------------------------------------------------

    @property
    def capacity(self) -> int:
        """Buckets in the table (what it will allocate, before the first insert)."""
        return self._capacity

    def tree_bins(self) -> int:
        """How many buckets are tree bins now (for tests and for measuring how often it happens)."""
        return sum(isinstance(b, _TreeBin) for b in self._table or ())

    def _bucket(self, key: K) -> int:
        return self._spread[key] & (self._capacity - 1)

    def _ensure_table(self) -> list[Bin[K]]:
        if self._table is None:
            self._table = [[] for _ in range(self._capacity)]
        return self._table

    def _resize(self) -> None:
        """Double the table; chains and tree lists split into low/high halves keeping order."""
        if self._table is None:
            self._ensure_table()
            return
        old, bit = self._table, self._capacity
        if bit >= MAXIMUM_CAPACITY:
            return
        table: list[Bin[K]] = [[] for _ in range(bit * 2)]
        for index, slot in enumerate(old):
            if isinstance(slot, _TreeBin):
                if len(slot) == 1:  # a lone node moves as it is, still a tree bin
                    key = next(iter(slot))
                    table[self._spread[key] & (bit * 2 - 1)] = slot
                else:
                    table[index], table[index + bit] = slot.split(bit)
            elif slot:
                spreads = self._spread
                table[index] = [k for k in slot if not spreads[k] & bit]
                table[index + bit] = [k for k in slot if spreads[k] & bit]
        self._table = table
        self._capacity = bit * 2

    def _hash_of(self, key: K) -> int:
        h = self._spread.get(key)
        if h is None:
            h = spread(self._hasher(key))
        return h

    def _insert(self, key: K, value: V, *, at_head: bool) -> None:
        """Link an absent key: tail (put) or head (computeIfAbsent), or into its tree bin."""
        table = self._ensure_table()
        h = self._hash_of(key)
        index = h & (self._capacity - 1)
        slot = table[index]
        if isinstance(slot, _TreeBin):
            slot.insert(key, int32(h))  # may raise TreeBinError, before any change
            self._spread[key] = h
            self._values[key] = value
            return
        existing = len(slot)
        treeify = existing >= (TREEIFY_THRESHOLD - 1 if at_head else TREEIFY_THRESHOLD)
        chain = [key, *slot] if at_head else [*slot, key]
        if treeify and self._capacity >= MIN_TREEIFY_CAPACITY:
            spreads = self._spread
            spreads[key] = h
            try:
                table[index] = _TreeBin([_Node(k, int32(spreads[k])) for k in chain], self._compare)
            except TreeBinError:
                del spreads[key]
                raise
            self._values[key] = value
            return
        if at_head:
            slot.insert(0, key)
        else:
            slot.append(key)
        self._spread[key] = h
        self._values[key] = value
        if treeify:
            self._resize()  # treeifyBin in a small table doubles it instead

    # -- Map API --------------------------------------------------------------------------------

    def put(self, key: K, value: V) -> None:
        """Map.put: replace in place, or append at the chain tail and resize past the threshold."""
        if key in self._values:
            self._values[key] = value
            return
        if self._table is None:
            self._ensure_table()
        self._insert(key, value, at_head=False)
        if len(self._values) > _threshold(self._capacity):
            self._resize()

    def compute_if_absent(self, key: K, factory: Callable[[], V]) -> V:
        """Map.computeIfAbsent: resize first if already over the threshold; insert at the head."""
        if self._table is None:
            self._ensure_table()
        elif len(self._values) > _threshold(self._capacity):
            self._resize()
        if key in self._values:
            return self._values[key]
        value = factory()
        self._insert(key, value, at_head=True)
        return value

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def __getitem__(self, key: K) -> V:
        return self._values[key]

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def remove(self, key: K, *, from_iterator: bool = False) -> bool:
        """Map.remove (True when the key was present), or an iterator's remove.

        A plain chain only loses the key. A tree bin may also move its root to the front, or
        turn back into a chain; ``from_iterator`` (Java's ``movable`` false) does neither.
        """
        if key not in self._values:
            return False
        assert self._table is not None
        index = self._bucket(key)
        slot = self._table[index]
        if isinstance(slot, _TreeBin):
            chain = slot.remove(key, movable=not from_iterator)
            if chain is not None:
                self._table[index] = chain
        else:
            slot.remove(key)
        del self._values[key]
        del self._spread[key]
        return True

    def keys(self) -> list[K]:
        """The key iteration order, as a snapshot."""
        if self._table is None:
            return []
        return [k for chain in self._table for k in chain]

    def items(self) -> list[tuple[K, V]]:
        """The entry iteration order, as a snapshot (values are live objects)."""
        return [(k, self._values[k]) for k in self.keys()]

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())


class JavaHashSet(Generic[K]):
    """A java.util.HashSet: a JavaHashMap whose values are ignored.

    ``initial_capacity`` None is ``new HashSet()``; an int is ``new HashSet(c)``. Use
    :meth:`copy_of` for ``new HashSet(collection)``. ``compare`` as for JavaHashMap.
    """

    def __init__(self, hasher: Hasher[K], initial_capacity: int | None = None, *,
                 compare: Comparator[K] | None = None) -> None:
        self._map: JavaHashMap[K, None] = JavaHashMap(hasher, initial_capacity, compare=compare)
        self.hasher = hasher

    @classmethod
    def copy_of(cls, hasher: Hasher[K], elements: Iterable[K], *,
                compare: Comparator[K] | None = None) -> JavaHashSet[K]:
        """``new HashSet<>(collection)``: sized from the collection, then ``add`` in its order."""
        items = list(elements)
        result = cls(hasher, hash_set_copy_capacity(len(items)), compare=compare)
        for item in items:
            result.add(item)
        return result

    def add(self, key: K) -> bool:
        """Set.add: True when the key was new (appended at its chain tail or into its tree)."""
        if key in self._map:
            return False
        self._map.put(key, None)
        return True

    def remove(self, key: K, *, from_iterator: bool = False) -> bool:
        """Set.remove, or ``Iterator.remove`` with ``from_iterator`` (see JavaHashMap.remove)."""
        return self._map.remove(key, from_iterator=from_iterator)

    def tree_bins(self) -> int:
        """How many buckets are tree bins now."""
        return self._map.tree_bins()

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def __len__(self) -> int:
        return len(self._map)

    def order(self) -> list[K]:
        """The iteration order, as a snapshot."""
        return self._map.keys()

    def __iter__(self) -> Iterator[K]:
        return iter(self.order())

    @property
    def capacity(self) -> int:
        return self._map.capacity
