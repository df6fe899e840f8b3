"""A seeded random-schedule generator over the core's operators (used by test_schedule_fuzzer).

Each schedule is a random sequence of primitives: splits (factors including non-divisors and
factors larger than the extent, or nparts), fuses, reorders, compute_at at random loops,
compute_inline, cache_read/cache_write and unroll/vectorize/parallel annotations. A primitive
that raises ScheduleError is recorded (the user would have been told) and the schedule goes on.
The verdict on a schedule is: built and matched numpy, or rejected with ScheduleError before
code generation. Anything else is a failure.

Every schedule is built with tessera.build's defaults, i.e. compiled with the flags users get
(CompileOptions in runtime/cpu/cpu_module.h: GCC -O3 -march=native -fopenmp ...), and its output
starts as a marker value so that elements the kernel fails to write show up. One class,
batch_matmul_int, is integer batch_matmul on small odd shapes with the parallel loop often moved
outermost: the class in which GCC 12 -O3 miscompiled zero-then-accumulate nests. Integer
schedules (every n-th of them) are also built with clang (when installed) as a differential
check of the compiler: both builds must match numpy bit for bit.
"""
import collections
import re
import shutil

import numpy as np

import tessera
from tessera import te

import op_defs

SMALL_SHAPES = {
    "matmul": lambda r: dict(M=int(r.integers(1, 24)), N=int(r.integers(1, 24)), K=int(r.integers(1, 12))),
    "batch_matmul": lambda r: dict(Bn=int(r.integers(1, 4)), M=int(r.integers(1, 10)),
                                   N=int(r.integers(1, 10)), K=int(r.integers(1, 8))),
    "conv2d": lambda r: dict(C=int(r.integers(1, 4)), H=int(r.integers(5, 10)), W=int(r.integers(5, 10)),
                             K=int(r.integers(1, 5)), stride=int(r.integers(1, 3)),
                             pad=int(r.integers(0, 2)), dil=int(r.integers(1, 3))),
    "depthwise_conv2d": lambda r: dict(C=int(r.integers(1, 5)), H=int(r.integers(3, 10)),
                                       W=int(r.integers(3, 10)), stride=int(r.integers(1, 3))),
    "max_pool2d": lambda r: dict(C=int(r.integers(1, 4)), H=int(r.integers(3, 12)), W=int(r.integers(3, 12))),
    "avg_pool2d": lambda r: dict(C=int(r.integers(1, 4)), H=int(r.integers(3, 12)), W=int(r.integers(3, 12))),
    "dense_bias_relu": lambda r: dict(M=int(r.integers(1, 12)), N=int(r.integers(1, 20)), K=int(r.integers(1, 16))),
    "softmax": lambda r: dict(M=int(r.integers(1, 9)), N=int(r.integers(1, 40))),
    "transpose": lambda r: dict(M=int(r.integers(1, 30)), N=int(r.integers(1, 30))),
    "elementwise_chain": lambda r: dict(M=int(r.integers(1, 20)), N=int(r.integers(1, 30))),
    # Small sizes, odd ones included, and short reductions: GCC 12 -O3 got batch_matmul wrong
    # with the parallel loop over j outermost, K = 1, Bn 4..8, M 2..4 and N 4..9.
    "batch_matmul_int": lambda r: dict(Bn=int(r.integers(1, 9)), M=int(r.integers(1, 7)),
                                       N=int(r.integers(1, 10)), K=int(r.choice([1, 1, 2, 3]))),
}
# The order cases cycle through: the miscompile's class twice as often as the others.
ROTATION = list(SMALL_SHAPES) + ["batch_matmul_int"]
BUILDERS = dict(op_defs.ALL_BUILDERS, batch_matmul_int=op_defs.batch_matmul)
ALWAYS_INT = {"batch_matmul_int"}
# The differential compiler: clang with the same default flags (None when not installed).
SECOND_COMPILER = "clang" if shutil.which("clang") else None
INT_OK = {"matmul", "batch_matmul", "conv2d", "depthwise_conv2d", "max_pool2d", "transpose",
          "elementwise_chain", "dense_bias_relu"}
# TVM's other dtypes (issue 13), drawn from their own random stream so that the schedules, shapes
# and inputs of the seeds above stay what they were: some int32 cases of these operators become
# uint32 or uint64 (wrapping arithmetic, unsigned division and max; the numpy references wrap
# the same way), some float32 cases of operators whose results are exact (copies, max) become
# float16, compared bit for bit.
UNSIGNED_OK = {"matmul", "batch_matmul", "transpose", "elementwise_chain", "max_pool2d",
               "batch_matmul_int"}
FLOAT16_OK = {"transpose", "max_pool2d"}


# Symbolic shapes (te.var): operators whose builders use their sizes only in te calls, so that
# they can be built over size variables; each schedule is built once and run at several sizes.
SYMBOLIC_DIMS = {"matmul": ("M", "N", "K"), "batch_matmul": ("Bn", "M", "N", "K"),
                 "transpose": ("M", "N"), "elementwise_chain": ("M", "N")}
SYMBOLIC_ROTATION = list(SYMBOLIC_DIMS)
# The extent random split factors are drawn for when an axis is symbolic.
SYMBOLIC_EXTENT_HINT = 12


def reason_of(err):
    """A short, stable reason for a ScheduleError: the primitive and the rule it broke."""
    msg = str(err)
    m = re.search(r"(split|fuse|reorder|vectorize|parallel|unroll|compute_at(?: target)?|"
                  r"compute_inline|cache_read|cache_write|tile)[^:]*: (.*)", msg)
    if not m:
        return msg[:60]
    rule = re.sub(r"'[^']*'", "X", m.group(2))
    rule = re.sub(r"\d+", "N", rule)
    return f"{m.group(1)}: {' '.join(rule.split()[:7])}"


class Fuzzer:
    def __init__(self, seed, second_compiler=SECOND_COMPILER, second_compiler_every=1):
        """second_compiler_every: build every n-th integer schedule with the second compiler
        too (CI uses 3 to stay fast; the nightly-size run 1)."""
        self.rng = np.random.default_rng(seed)
        self.dtype_rng = np.random.default_rng([seed, 13])
        self.built_by_dtype = collections.Counter()
        self.second_compiler = second_compiler
        self.second_compiler_every = second_compiler_every
        self.integer_built = 0
        self.built = 0
        self.built_by_op = collections.Counter()
        self.checked_with_second_compiler = 0
        self.symbolic_runs = 0  # calls of symbolic schedules at one size, each checked
        self.rejected = collections.Counter()      # final verdict: rejected, by reason
        self.primitive_errors = collections.Counter()  # primitives refused along the way

    def _try(self, fn):
        try:
            return fn()
        except tessera.ScheduleError as e:
            self.primitive_errors[reason_of(e)] += 1
            return None

    def _factor(self, extent):
        r = self.rng.random()
        if r < 0.4:
            divisors = [d for d in range(1, extent + 1) if extent % d == 0]
            return int(self.rng.choice(divisors))
        if r < 0.8:
            return int(self.rng.integers(1, extent + 4))
        return int(self.rng.integers(-1, 2)) if self.rng.random() < 0.1 else extent + int(self.rng.integers(1, 9))

    def random_schedule(self, case, parallel_outer=False):
        r = self.rng
        s = te.create_schedule(case.output.op)
        if parallel_outer:
            # A data axis first (often the innermost one), then parallel: the loop nest shape of
            # GCC's miscompile.
            out = s[case.output]
            axes = list(out.leaf_iter_vars)
            data = [a for a in axes if not a.is_reduce]
            first = data[-1] if r.random() < 0.5 else data[int(r.integers(len(data)))]
            self._try(lambda: out.reorder(first, *[a for a in axes if a is not first]))
            self._try(lambda: out.parallel(first))
        # Optional dataflow rewrites first (a cache_write after loop primitives is drawn below).
        if r.random() < 0.15:
            self._try(lambda: s.cache_write(case.output, "local"))
        if r.random() < 0.2:
            inputs = [t for t in case.args[:-1]]
            t = inputs[int(r.integers(len(inputs)))]
            readers = [st.op for st in s.stages if t in st.op.input_tensors]
            if readers:
                self._try(lambda: s.cache_read(t, "local", readers[:1]))
        stages = list(s.stages)
        for _ in range(int(r.integers(0, 4) if parallel_outer else r.integers(1, 9))):
            st = stages[int(r.integers(len(stages)))]
            leaves = list(st.leaf_iter_vars)
            if not leaves:
                continue
            choice = r.random()
            ax = leaves[int(r.integers(len(leaves)))]
            if choice < 0.3:
                extent = ax.extent if isinstance(ax.extent, int) else SYMBOLIC_EXTENT_HINT
                f = self._factor(max(1, extent))
                if r.random() < 0.2:
                    self._try(lambda: st.split(ax, nparts=f))
                else:
                    self._try(lambda: st.split(ax, factor=f))
            elif choice < 0.4 and len(leaves) >= 2:
                p = int(r.integers(len(leaves) - 1))
                self._try(lambda: st.fuse(leaves[p], leaves[p + 1]))
            elif choice < 0.55 and len(leaves) >= 2:
                perm = [leaves[int(i)] for i in r.permutation(len(leaves))]
                self._try(lambda: st.reorder(*perm))
            elif choice < 0.72:
                consumers = [c for c in stages if st.op in [t.op for t in c.op.input_tensors]
                             or any(t.op == st.op for t in c.op.input_tensors)]
                if consumers:
                    c = consumers[int(r.integers(len(consumers)))]
                    cl = list(c.leaf_iter_vars)
                    self._try(lambda: st.compute_at(c, cl[int(r.integers(len(cl)))]))
            elif choice < 0.8:
                self._try(lambda: st.compute_inline())
            else:
                kind = int(r.integers(3))
                if kind == 0:
                    self._try(lambda: st.unroll(ax))
                elif kind == 1:
                    target = leaves[-1] if r.random() < 0.7 else ax
                    self._try(lambda: st.vectorize(target))
                else:
                    self._try(lambda: st.parallel(ax))
        # TVM's re-layout: cache_write after loop primitives on the output, the cache laid out
        # by its loops (sometimes computed at one of the output's loops again).
        if not parallel_outer and r.random() < 0.1:
            cache = self._try(lambda: s.cache_write(case.output, "local"))
            if cache is not None and r.random() < 0.5:
                out = s[case.output]
                ol = list(out.leaf_iter_vars)
                self._try(lambda: s[cache].compute_at(out, ol[int(r.integers(len(ol)))]))
        return s

    def one(self, index):
        r = self.rng
        name = ROTATION[index % len(ROTATION)]
        dtype = "float32"
        if name in ALWAYS_INT or (name in INT_OK and r.random() < 0.4):
            dtype = "int32" if r.random() < 0.5 else "int8"
        d = self.dtype_rng.random()
        if dtype == "int32" and name in UNSIGNED_OK and d < 0.3:
            dtype = "uint32" if d < 0.15 else "uint64"
        elif dtype == "float32" and name in FLOAT16_OK and d < 0.25:
            dtype = "float16"
        kw = SMALL_SHAPES[name](r)
        if name in ("matmul", "conv2d") and dtype == "int8":
            kw["acc"] = "int32"
        case = BUILDERS[name](dtype=dtype, **kw)
        s = self.random_schedule(case, parallel_outer=name in ALWAYS_INT and r.random() < 0.7)
        try:
            f = tessera.build(s, case.args, target="c", name=f"fuzz{index}")
        except tessera.ScheduleError as e:
            self.rejected[reason_of(e)] += 1
            return
        builds = [("the default compiler", f)]
        if dtype != "float32":
            self.integer_built += 1
        if (self.second_compiler and dtype != "float32" and
                (self.integer_built - 1) % self.second_compiler_every == 0):
            builds.append((self.second_compiler, tessera.build(
                s, case.args, target="c", name=f"fuzz{index}", compiler=self.second_compiler)))
            self.checked_with_second_compiler += 1
        state = r.bit_generator.state
        for compiler, module in builds:
            r.bit_generator.state = state  # the same inputs for every compiler
            out, ref = op_defs.run_case(case, module, r)
            try:
                op_defs.assert_matches(out, ref, case.output.dtype)
            except AssertionError as e:
                raise AssertionError(
                    f"schedule {index} ({name}, {dtype}, {kw}) built with {compiler} gave a "
                    f"wrong result:\n{s}\n{tessera.lower(s, case.args)}\n{e}") from None
        self.built += 1
        self.built_by_op[name] += 1
        self.built_by_dtype[dtype] += 1

    def one_symbolic(self, index, sizes_per_schedule=3):
        """A random schedule over size variables: built once (a SymbolicModule), then called at
        `sizes_per_schedule` random sizes; every call matches numpy or the schedule is rejected
        with ScheduleError (at its first call, where it is specialized and lowered)."""
        r = self.rng
        name = SYMBOLIC_ROTATION[index % len(SYMBOLIC_ROTATION)]
        dtype = "int32" if r.random() < 0.5 else "float32"
        dims = {d: te.var(d) for d in SYMBOLIC_DIMS[name]}
        case = BUILDERS[name](dtype=dtype, **dims)
        s = self.random_schedule(case)
        f = tessera.build(s, case.args, target="c", name=f"sym{index}")
        assert isinstance(f, tessera.SymbolicModule)
        for call in range(sizes_per_schedule):
            sizes = {d: v for d, v in SMALL_SHAPES[name](r).items() if d in dims}
            concrete = BUILDERS[name](dtype=dtype, **sizes)
            try:
                out, ref = op_defs.run_case(concrete, f, r)
            except tessera.ScheduleError as e:
                assert call == 0, f"symbolic schedule {index} rejected only at sizes {sizes}: {e}"
                self.rejected["symbolic " + reason_of(e)] += 1
                return
            try:
                op_defs.assert_matches(out, ref, dtype)
            except AssertionError as e:
                raise AssertionError(
                    f"symbolic schedule {index} ({name}, {dtype}) at sizes {sizes} gave a wrong "
                    f"result:\n{s}\n{tessera.lower(s, case.args, sizes=sizes)}\n{e}") from None
            self.symbolic_runs += 1
        self.built += 1
        self.built_by_op["symbolic " + name] += 1

    def report(self):
        lines = [f"schedule fuzzer: {self.built} built and matched numpy, "
                 f"{sum(self.rejected.values())} rejected with ScheduleError, 0 wrong results; "
                 f"{self.checked_with_second_compiler} integer schedules also built with "
                 f"{self.second_compiler or 'no second compiler'} and matched",
                 "  built by operator: " + ", ".join(
                     f"{k} {v}" for k, v in sorted(self.built_by_op.items())),
                 "  built by dtype: " + ", ".join(
                     f"{k} {v}" for k, v in sorted(self.built_by_dtype.items()))]
        for reason, n in sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  rejected {n:4d}  {reason}")
        lines.append(f"  primitives refused while generating: {sum(self.primitive_errors.values())}")
        for reason, n in sorted(self.primitive_errors.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"    {n:4d}  {reason}")
        return "\n".join(lines)
