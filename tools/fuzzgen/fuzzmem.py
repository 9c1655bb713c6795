"""Memory-class statements for fuzzgen: the allocations, copies and moves whose derivatives depend
on the engine finding and moving shadows, rather than on local derivative rules.

  aligned     scratch buffers from aligned_alloc (size a multiple of the alignment), posix_memalign,
              memalign and valloc, freed with free(); sometimes twice the size with only the upper
              half used, allocated inside loops, or made and freed by helper functions (the block
              and its shadow come back from one call and go to another)
  arena       a bump allocator in the generated file registered with __enzyme_allocation_like
              (size is argument 0, the deallocator takes the pointer): scratch buffers and heap
              struct copies come from it, and every block, shadows included, must go back to it
  workspace   an extra `double *ws` parameter passed with enzyme_dup: written, then read, possibly
              rewritten (also inside loops); its initial contents and tangents are junk and its
              final contents are not outputs (the reverse-mode shadow starts at zero, as Enzyme's
              convention requires)
  structcopy  fz_S {double *v; double d; float f; int k; double e;} pointing at active data, made
              by an initializer or a helper returning it, copied by assignment, memcpy, field by
              field through integers, or as an array of two copied whole to the heap, then read and
              written through the copy and passed by value to a helper; copies of the fz_P argument
              (doubles and an int) changed and copied back
  intmove     doubles moved through uint64_t with memcpy: single moves into arrays or locals, swaps,
              rotations, a whole array through a uint64_t buffer, and insertion and bubble sorts of
              a writable array that move its elements as bits

Which functions get them is drawn from a random stream of its own, so a function without memory
features is the same text as before they existed (`--mem 0` reproduces old streams exactly).
"""

FEATURES = ["aligned", "arena", "workspace", "structcopy", "intmove"]
# The features in the default mix (fuzz.sh FUZZ_MEM_FEATURES and fuzzgen --mem-features override).
DEFAULT_FEATURES = list(FEATURES)
# Fraction of functions that use memory features by default; each of those functions turns on
# each enabled feature with probability 1/2 (at least one).
DEFAULT_RATE = 0.25
# Probability that a statement of such a function is a memory statement.
STMT_RATE = 0.3

# Defined once per file that uses the arena. The arena only resets when every block is back, so a
# shadow the engine never frees fills it up (abort) and fz_arena_settle reports the block count
# after every call of the function.
ARENA = r'''
/* fuzzgen arena: a registered user allocator (Enzyme's __enzyme_allocation_like convention) */
static char fz_arena_mem[1 << 16] __attribute__((aligned(64)));
static size_t fz_arena_used;
static int fz_arena_live;
/* The plugin keeps registered allocators out of line; plain clang at -O1 and above inlines them
   before synthase-opt sees the module, so the standalone path builds with -DFZ_ARENA_NOINLINE. */
#ifdef FZ_ARENA_NOINLINE
__attribute__((noinline))
#endif
void *fz_arena_alloc(size_t n) {
  size_t at = (fz_arena_used + 63) & ~(size_t)63;
  if (at + n > sizeof fz_arena_mem)
    abort();
  fz_arena_used = at + n;
  ++fz_arena_live;
  return fz_arena_mem + at;
}
#ifdef FZ_ARENA_NOINLINE
__attribute__((noinline))
#endif
void fz_arena_free(void *q) {
  if ((char *)q < fz_arena_mem || (char *)q >= fz_arena_mem + fz_arena_used || fz_arena_live <= 0)
    abort(); /* not a live block of this arena */
  if (--fz_arena_live == 0)
    fz_arena_used = 0;
}
#ifdef __cplusplus
extern "C" {
#endif
void *__enzyme_allocation_like[4] = {(void *)fz_arena_alloc, (void *)0, (void *)"-1",
                                     (void *)fz_arena_free};
#ifdef __cplusplus
}
#endif
/* every block handed out during one call must be back afterwards */
static void fz_arena_settle(const char *fn, const char *mode) {
  if (fz_arena_live == 0)
    return;
#ifdef FZ_PRIMAL_ONLY
  (void)fn; (void)mode;
  abort(); /* the generated program leaks an arena block: a generator bug */
#else
  fprintf(stderr, "FZMISMATCH %s arena: %d blocks still live after the %s call\n", fn, fz_arena_live, mode);
  fz_arena_live = 0;
  fz_arena_used = 0;
  fz_extra_bad = 1;
#endif
}
'''

FSCALE = "1e-6"
ALLOCS = ["aligned_alloc", "posix_memalign", "memalign", "valloc"]


def pick_features(mrng, enabled):
    """The memory features of one function: each enabled one with probability 1/2, at least one."""
    got = [f for f in enabled if mrng.random() < 0.5]
    if not got and enabled:
        got = [mrng.choice(enabled)]
    return set(got)


def alloc_lines(fg, ind, m, nbytes, decl_type="double"):
    """(allocation text, free text) for a block of nbytes bytes named m, with an allocator drawn
    from the function's enabled allocator features."""
    kinds = []
    if "aligned" in fg.mem:
        kinds += ALLOCS
    if "arena" in fg.mem:
        kinds += ["arena", "arena"]
    kind = fg.m.choice(kinds)
    cast = "(%s *)" % decl_type
    if kind == "arena":
        fg.uses_arena = True
        return "%s%s *%s = %sfz_arena_alloc(%s);\n" % (ind, decl_type, m, cast, nbytes), "%sfz_arena_free(%s);\n" % (ind, m)
    free = "%sfree(%s);\n" % (ind, m)
    if kind == "aligned_alloc":
        # C11 wants the size to be a multiple of the alignment
        return ("%s%s *%s = %saligned_alloc(64, (%s + 63) / 64 * 64);\n" % (ind, decl_type, m, cast, nbytes)), free
    if kind == "posix_memalign":
        return ("%s%s *%s;\n%s{\n%s  void *pm_ = 0;\n%s  if (posix_memalign(&pm_, 64, %s) != 0)\n%s    abort();\n"
                "%s  %s = %spm_;\n%s}\n" % (ind, decl_type, m, ind, ind, ind, nbytes, ind, ind, m, cast, ind)), free
    if kind == "memalign":
        return "%s%s *%s = %smemalign(64, %s);\n" % (ind, decl_type, m, cast, nbytes), free
    return "%s%s *%s = %svalloc(%s);\n" % (ind, decl_type, m, cast, nbytes), free


def helper_alloc(fg):
    """Allocator of the `ptr` helpers' temporary in a function with allocator features, or None
    (malloc, the old text)."""
    if not (fg.mem & {"aligned", "arena"}) or fg.m.random() < 0.3:
        return None
    return alloc_lines(fg, "  ", "tmp", "sizeof(double) * n")


def writable(ctx):
    return [a for a, w in ctx.arrays if w]


def mem_stmt(fg, ctx, depth, budget):
    """A memory statement for FuncGen fg, or None when none fits here. Returns (text, cost)."""
    r = fg.r
    ind = "  " * (depth + 1)
    kinds = []
    # allocations and workspace rewrites inside loops too: reverse mode must keep every
    # iteration's block, or the values it overwrites
    if depth <= 2 and budget >= 3 and fg.mem & {"aligned", "arena"}:
        kinds.append(scratch)
    if depth <= 2 and budget >= 3 and fg.ws:
        kinds.append(workspace)
    if depth < 3 and budget >= 2 and "structcopy" in fg.mem and writable(ctx):
        kinds.append(structcopy)
        if ctx.struct and ctx.locals:
            kinds.append(pcopy)
    if "intmove" in fg.mem and writable(ctx):
        kinds.append(intmove)
    if not kinds:
        return None
    return fg.m.choice(kinds)(fg, ctx, depth, budget, ind)


def fill_use_reduce(fg, ctx, depth, ind, m):
    """Writes every element of m, runs statements that may read and write it, then reads it back
    into a local."""
    r = fg.r
    # inside loops (over i, j, l) the fill and read loops get an index of their own
    v = "i" if not ctx.loopvars else "u%d" % fg.tmp
    c_in = ctx.sub(loopvars=ctx.loopvars + [v])
    fill = fg.bexpr(c_in)
    c_use = ctx.sub(arrays=ctx.arrays + [(m, True)])
    # no early return while a block is live (the program would leak it)
    fg.in_scratch = getattr(fg, "in_scratch", 0) + 1
    use = fg.stmts(c_use, r.randrange(1, 3), depth)
    fg.in_scratch -= 1
    tgt = r.choice(ctx.locals)
    if r.random() < 0.5:
        red = "%s += 0.5 * sin(%s[%s]);" % (tgt, m, v)
    else:
        red = "%s += %s[(%s * 3) %% n] * %s;" % (tgt, m, v, fg.bexpr(c_in))
    loop = "%sfor (int %s = 0; %s < n; ++%s)\n" % (ind, v, v, v)
    return ("%s%s  %s[%s] = %s;\n%s%s%s  %s\n") % (loop, ind, m, v, fill, "".join(use), loop, ind, red)


def alloc_helpers(fg, ctx):
    """A pair of helpers: one allocates, fills from an array and returns the block, the other
    frees it (the shadow comes back from a call and goes to another)."""
    Ctx = type(ctx)
    fg.tmp += 1
    mk, rel = "%s_mk%d" % (fg.name, fg.tmp), "%s_rel%d" % (fg.name, fg.tmp)
    alloc, free = alloc_lines(fg, "  ", "m", "sizeof(double) * n")
    c = Ctx(["s", "src[i]"], [("src", False)], ["i"], None, [], ["n"])
    fg.helpers.append("static double *%s(const double *src, int n, double s) {\n%s"
                      "  for (int i = 0; i < n; ++i)\n    m[i] = %s;\n  return m;\n}\n"
                      "static void %s(double *m) {\n%s}\n" % (mk, alloc, fg.bexpr(c), rel, free))
    return mk, rel


def scratch(fg, ctx, depth, budget, ind):
    fg.tmp += 1
    m = "m%d" % fg.tmp
    if fg.m.random() < 0.25:
        mk, rel = alloc_helpers(fg, ctx)
        src = fg.r.choice([a for a, _ in ctx.arrays])
        return ("%sdouble *%s = %s(%s, n, %s);\n" % (ind, m, mk, src, fg.expr(ctx, 2))
                + fill_use_reduce(fg, ctx, depth, ind, m) + "%s%s(%s);\n" % (ind, rel, m)), 3
    if fg.m.random() < 0.3:
        # twice the size, only the upper half used: the shadow must be as large as the block
        alloc, free = alloc_lines(fg, ind, m, "sizeof(double) * 2 * n")
        return alloc + fill_use_reduce(fg, ctx, depth, ind, "(%s + n)" % m) + free, 3
    alloc, free = alloc_lines(fg, ind, m, "sizeof(double) * n")
    return alloc + fill_use_reduce(fg, ctx, depth, ind, m) + free, 3


def workspace(fg, ctx, depth, budget, ind):
    return fill_use_reduce(fg, ctx, depth, ind, "ws"), 3


def structcopy(fg, ctx, depth, budget, ind):
    """fz_S s = {array, d, (float)f, k, e}; copied to c (assignment or memcpy, stack or heap),
    then read and written through c."""
    r, mr = fg.r, fg.m
    fg.tmp += 1
    s, c = "s%d" % fg.tmp, "c%d" % fg.tmp
    arr = r.choice(writable(ctx))
    i2 = ind + "  "
    if mr.random() < 0.25:
        # made by a helper that returns the struct (sret)
        text = "%s{\n%sfz_S %s = %s(%s, %s, %s, n);\n" % (ind, i2, s, struct_helpers(fg, ctx)[0], arr,
                                                       fg.expr(ctx, 2), fg.expr(ctx, 2))
    else:
        text = "%s{\n%sfz_S %s = {%s, %s, (float)tanh(%s), %d, %s};\n" % (
            ind, i2, s, arr, fg.expr(ctx, 2), fg.bexpr(ctx), r.randrange(3), fg.expr(ctx, 2))
    how = mr.choice(["assign", "memcpy", "heap_assign", "heap_memcpy", "fields", "pair"])
    free = ""
    if how == "pair":
        # an array of two copies, then the pair copied whole (constant length) to the heap
        text += ("%sfz_S pr%d[2];\n%spr%d[0] = %s;\n%smemcpy(&pr%d[1], &%s, sizeof %s);\n%spr%d[0].e = %s;\n"
                 "%sfz_S *%s = (fz_S *)malloc(sizeof pr%d);\n%smemcpy(%s, pr%d, sizeof pr%d);\n"
                 % (i2, fg.tmp, i2, fg.tmp, s, i2, fg.tmp, s, s, i2, fg.tmp, fg.expr(ctx, 1),
                    i2, c, fg.tmp, i2, c, fg.tmp, fg.tmp))
        free = "%sfree(%s);\n" % (i2, c)
        f = "%s[%d]." % (c, r.randrange(2))
    elif how == "assign":
        text += "%sfz_S %s = %s;\n" % (i2, c, s)
        f = c + "."
    elif how == "fields":
        # field by field, the pointer and the floats through integers of their widths
        text += ("%sfz_S %s;\n%s{\n%s  uintptr_t pv_;\n%s  uint64_t dv_;\n%s  uint32_t fv_;\n"
                 "%s  memcpy(&pv_, &%s.v, sizeof pv_);\n%s  memcpy(&%s.v, &pv_, sizeof pv_);\n"
                 "%s  memcpy(&dv_, &%s.d, 8);\n%s  memcpy(&%s.d, &dv_, 8);\n"
                 "%s  memcpy(&fv_, &%s.f, 4);\n%s  memcpy(&%s.f, &fv_, 4);\n"
                 "%s  %s.k = %s.k;\n%s  %s.e = %s.e;\n%s}\n"
                 % (i2, c, i2, i2, i2, i2, i2, s, i2, c, i2, s, i2, c, i2, s, i2, c, i2, c, s, i2, c, s, i2))
        f = c + "."
    elif how == "memcpy":
        text += "%sfz_S %s;\n%smemcpy(&%s, &%s, sizeof %s);\n" % (i2, c, i2, c, s, c)
        f = c + "."
    else:
        if "arena" in fg.mem and mr.random() < 0.5:
            fg.uses_arena = True
            text += "%sfz_S *%s = (fz_S *)fz_arena_alloc(sizeof(fz_S));\n" % (i2, c)
            free = "%sfz_arena_free(%s);\n" % (i2, c)
        else:
            text += "%sfz_S *%s = (fz_S *)malloc(sizeof(fz_S));\n" % (i2, c)
            free = "%sfree(%s);\n" % (i2, c)
        if how == "heap_assign":
            text += "%s*%s = %s;\n" % (i2, c, s)
        else:
            text += "%smemcpy(%s, &%s, sizeof(fz_S));\n" % (i2, c, s)
        f = c + "->"
    if mr.random() < 0.4:
        # the source changes after the copy: the copy keeps the old values
        text += "%s%s.d = %s;\n" % (i2, s, fg.expr(ctx, 1))
    tgt = r.choice(ctx.locals)
    # The float field (|f| <= 1) enters scaled by FSCALE: where f changes by less than a float ulp
    # across the finite-difference stencil (f' < 1.5e-3) FD sees it constant while AD does not, and
    # helpers can amplify that by 100 or more. A float adjoint lost in one mode still shows in the
    # dot-product test (1e-10) and the vector-lane comparison (1e-12).
    reads = ["%sd * %sv[%s]" % (f, f, fg.index(ctx)), "%s * (double)%sf" % (FSCALE, f), "%se" % f,
             "%sv[%sk] * %se" % (f, f, f), "sin(%sd) * %s * %sf" % (f, FSCALE, f)]
    text += "%s%s += %s;\n" % (i2, tgt, " + ".join(r.sample(reads, r.randrange(1, 4))))
    k = mr.random()
    if k < 0.4:
        # write through the copied pointer
        text += "%s%sv[%s] = %s * %sd + %s * %sf;\n" % (i2, f, fg.index(ctx), fg.bexpr(ctx), f, FSCALE, f)
    elif k < 0.7:
        text += ("%sfor (int i = 0; i < n; ++i)\n%s  %s += %sv[i] * %s;\n"
                 % (i2, i2, tgt, f, r.choice(["%sd" % f, "%se" % f, "sin(%sd)" % f])))
    if mr.random() < 0.3:
        # the copy passed by value (a byval copy on x86-64) to a helper that reads and writes
        # through its pointer
        cv = f[:-1] if f.endswith(".") else "*" + f[:-2]
        text += "%s%s += %s(%s, n);\n" % (i2, r.choice(ctx.locals), struct_helpers(fg, ctx)[1], cv)
    return text + free + "%s}\n" % ind, 2


def struct_helpers(fg, ctx):
    """(maker returning fz_S, reader taking fz_S by value), made once per function."""
    if not getattr(fg, "fzs_helpers", None):
        Ctx = type(ctx)
        mk, rd = "%s_mks" % fg.name, "%s_sv" % fg.name
        c = Ctx(["d", "e"], [("v", False)], [], None, [], ["n"])
        fg.helpers.append(
            "static fz_S %s(double *v, double d, double e, int n) {\n  fz_S s;\n  s.v = v;\n  s.d = %s;\n"
            "  s.f = (float)tanh(%s);\n  s.k = %d;\n  s.e = %s;\n  return s;\n}\n"
            % (mk, fg.expr(c, 2), fg.expr(c, 2), fg.r.randrange(3), fg.expr(c, 2)))
        c = Ctx(["s.d", "s.e", "acc"], [("s.v", True)], ["i"], None, [], ["n"])
        body = "  double acc = s.e + %s * s.f;\n  for (int i = 0; i < n; ++i)\n    acc += %s;\n" % (
            FSCALE, fg.bexpr(c))
        if fg.m.random() < 0.5:
            body += "  s.v[s.k] = %s;\n" % fg.expr(c.sub(loopvars=[]), 2)
        fg.helpers.append("static double %s(fz_S s, int n) {\n%s  return acc;\n}\n" % (rd, body))
        fg.fzs_helpers = (mk, rd)
    return fg.fzs_helpers


def pcopy(fg, ctx, depth, budget, ind):
    """A copy of the fz_P argument (doubles and an int) by assignment or memcpy, on the stack or
    the heap, read and changed, then copied back."""
    r, mr = fg.r, fg.m
    fg.tmp += 1
    c = "pc%d" % fg.tmp
    i2 = ind + "  "
    how = mr.choice(["assign", "memcpy", "heap"])
    if how == "heap":
        text = "%s{\n%sfz_P *%s = (fz_P *)malloc(sizeof *%s);\n%smemcpy(%s, %s, sizeof *%s);\n" % (
            ind, i2, c, c, i2, c, ctx.struct, c)
        f, back, free = c + "->", "%s*%s = *%s;\n" % (i2, ctx.struct, c), "%sfree(%s);\n" % (i2, c)
    else:
        text = ("%s{\n%sfz_P %s = *%s;\n" if how == "assign" else "%s{\n%sfz_P %s;\n" + i2 + "memcpy(&%s, %s, sizeof %s);\n"
                ) % ((ind, i2, c, ctx.struct) if how == "assign" else (ind, i2, c, c, ctx.struct, c))
        f, back, free = c + ".", "%smemcpy(%s, &%s, sizeof %s);\n" % (i2, ctx.struct, c, c), ""
    cc = ctx.sub(struct=None)
    text += "%s%ss[%d] = %s;\n" % (i2, f, r.randrange(3), fg.expr(cc, 2))
    text += "%s%s += %sw * %ss[%sk %% 3];\n" % (i2, r.choice(ctx.locals), f, f, f)
    if mr.random() < 0.6:
        text += back
    return text + free + "%s}\n" % ind, 2


def intmove(fg, ctx, depth, budget, ind):
    r, mr = fg.r, fg.m
    w = writable(ctx)
    src = r.choice([a for a, _ in ctx.arrays])
    dst = r.choice(w)
    fg.tmp += 1
    b = "b%d" % fg.tmp
    k = mr.random()
    if k < 0.12:
        # a whole array through a buffer of uint64_t (n <= 5), put back reversed or in order
        q = "q%d" % fg.tmp
        back = mr.choice(["%s" % q, "n - 1 - %s" % q])
        return ("%s{\n%s  uint64_t %s[8];\n%s  memcpy(%s, %s, sizeof(double) * n);\n"
                "%s  for (int %s = 0; %s < n; ++%s)\n%s    memcpy(&%s[%s], &%s[%s], 8);\n%s}\n"
                % (ind, ind, b, ind, b, src, ind, q, q, q, ind, dst, q, b, back, ind)), 1
    if k < 0.3:
        return ("%s{\n%s  uint64_t %s;\n%s  memcpy(&%s, &%s[%s], 8);\n%s  memcpy(&%s[%s], &%s, 8);\n%s}\n"
                % (ind, ind, b, ind, b, src, fg.index(ctx), ind, dst, fg.index(ctx), b, ind)), 1
    if k < 0.45 and ctx.locals:
        # into a double local
        return ("%s{\n%s  uint64_t %s;\n%s  memcpy(&%s, &%s[%s], sizeof %s);\n%s  memcpy(&%s, &%s, sizeof %s);\n%s}\n"
                % (ind, ind, b, ind, b, src, fg.index(ctx), b, ind, r.choice(ctx.locals), b, b, ind)), 1
    if k < 0.75:
        # swap two elements through uint64_t
        i, j = fg.index(ctx), fg.index(ctx)
        return ("%s{\n%s  uint64_t %s, %s_;\n%s  memcpy(&%s, &%s[%s], 8);\n%s  memcpy(&%s_, &%s[%s], 8);\n"
                "%s  memcpy(&%s[%s], &%s_, 8);\n%s  memcpy(&%s[%s], &%s, 8);\n%s}\n"
                % (ind, ind, b, b, ind, b, dst, i, ind, b, dst, j, ind, dst, i, b, ind, dst, j, b, ind)), 1
    if budget >= 2 and k < 0.9:
        # insertion sort moving the elements as bits, compared as doubles (or a bubble sort of
        # uint64_t swaps); indices of their own, as it may sit inside loops
        i2 = ind + "  "
        si, sj = "i%d" % fg.tmp, "j%d" % fg.tmp
        if mr.random() < 0.7:
            return ("%sfor (int %s = 1; %s < n; ++%s) {\n%suint64_t %s;\n%sdouble kv;\n%smemcpy(&%s, &%s[%s], 8);\n"
                    "%smemcpy(&kv, &%s, 8);\n%sint %s = %s - 1;\n%swhile (%s >= 0 && %s[%s] > kv) {\n"
                    "%s  memcpy(&%s[%s + 1], &%s[%s], 8);\n%s  --%s;\n%s}\n%smemcpy(&%s[%s + 1], &%s, 8);\n%s}\n"
                    % (ind, si, si, si, i2, b, i2, i2, b, dst, si, i2, b, i2, sj, si, i2, sj, dst, sj,
                       i2, dst, sj, dst, sj, i2, sj, i2, i2, dst, sj, b, ind)), 2
        cmp = mr.choice([">", "<"])
        return ("%sfor (int %s = 0; %s < n; ++%s)\n%s  for (int %s = 0; %s + 1 < n - %s; ++%s)\n"
                "%s    if (%s[%s] %s %s[%s + 1]) {\n%s      uint64_t %s, %s_;\n"
                "%s      memcpy(&%s, &%s[%s], 8);\n%s      memcpy(&%s_, &%s[%s + 1], 8);\n"
                "%s      memcpy(&%s[%s], &%s_, 8);\n%s      memcpy(&%s[%s + 1], &%s, 8);\n%s    }\n"
                % (ind, si, si, si, ind, sj, sj, si, sj, ind, dst, sj, cmp, dst, sj, ind, b, b,
                   ind, b, dst, sj, ind, b, dst, sj, ind, dst, sj, b, ind, dst, sj, b, ind)), 2
    # a rotated copy, element by element (its own index: it may sit inside loops over i, j, l)
    q = "q%d" % fg.tmp
    return ("%sfor (int %s = 0; %s < n; ++%s) {\n%s  uint64_t %s;\n%s  memcpy(&%s, &%s[%s], 8);\n"
            "%s  memcpy(&%s[(%s + %d) %% n], &%s, 8);\n%s}\n"
            % (ind, q, q, q, ind, b, ind, b, src, q, ind, dst, q, r.randrange(1, 3), b, ind)), 1
