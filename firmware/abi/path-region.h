/*
 * The Ball-Larus path region: the one definition of the per-core RAM an
 * image instrumented with `alphaprof instrument --paths` counts its paths
 * in.  Written by the generated edge trampolines (host-tools/util/
 * instrument-*.c), read by the monitor (firmware/profiler/cct-drain.c)
 * after the run, cleared by the loader before one.  It is the same per-core
 * region as the calling context tree's (cct-region.h note 1: found from sp,
 * CCT_PHYS + core * CCT_PER_CORE); an image is instrumented for one or the
 * other, told apart by the magic.
 *
 * Design notes
 *  1. Numbering.  The model's: util/ball-larus.c over calc's CFG of every
 *     function symbol (util/path-plan.c), so the instrumented counts and
 *     the oracle's PATH.blpaths name the same paths by (procedure start,
 *     path number).  A procedure is instrumented when its numbering is
 *     countable in an array (BL_OK) and fits the counters left; the others
 *     are listed in the image's path table with no counters (the host
 *     reports them, never guesses).
 *  2. Path register r, per procedure where it costs least (util/
 *     instrument-emit.h, struct pmode; registers from util/liveness.h):
 *     - none: no increment inside and no backedge, so every exit's number
 *       is known when instrumenting; only the exits count (no entry code);
 *     - a leaf (no calls, no PAL calls, only standard returns): a
 *       temporary the procedure never names, dead at its entry and exits,
 *       set at the entry (r = ENTRY's add); with loops, a second one holds
 *       the counters' address from the entry on;
 *     - with calls (or a leaf whose returns keep every register, such as
 *       millicode): a callee-saved register ($9-$15) it never names, so
 *       callees keep it; the entry pushes the caller's value on the
 *       register stack (slot depth + 1; a second such register, the
 *       counters' address when it has loops, in the same slot of the
 *       second stack), an exit counts and pops them back;
 *     - else in memory: the entry pushes r itself on the stack, chords add
 *       to it there.
 *     (Counts only, the last two keep their slot in the procedure's own
 *     stack frame when it can grow: note 11.)
 *     The entry trampoline sits at the procedure's entry, or at entry + 8
 *     after ldgp, so both entries pass it.  An edge to EXIT counts
 *     count[r + add]; a backedge counts and sets r = reset; other chord
 *     edges add.  Only edges whose action does something carry code
 *     (increments on spanning-tree chords, ball-larus.h note 4, the tree
 *     weighted so that chords fall where their code is there anyway).
 *     Scratch registers are ones dead at the trampoline; only when too few
 *     are, some are kept below sp (a trap from user mode runs on the kernel
 *     stack).  A trampoline finds the region from sp (cct-region.h note 1);
 *     the region's `magic` (its own address) is set by the loader in every
 *     core's region before a --paths image runs (note 8), and in every
 *     core's --both path region before a --both image runs (note 13).
 *  3. Bounds.  PATH_STACK_SLOTS registers; an activation deeper than that
 *     runs on the sink slot (depth = PATH_SINK), `excess` counts how many
 *     are on it.  Memory registers on the sink are counted in `lost_paths`,
 *     not in a counter; callee-saved ones count their own paths, but only
 *     the outermost's caller gets its register back (kept in the sink
 *     slot): a deeper one's caller gets PATH_POISON (instrument-emit.h), which
 *     no numbering reaches, so its paths count as `lost_paths` until a
 *     backedge resets it.  An exit with no activation (depth 0: entered
 *     other than by its entry) counts `unmatched_exits`.  A path number out
 *     of [0, npaths) (cannot happen with a right numbering and control that
 *     enters procedures by their entries) counts `bad_paths`: every count
 *     of a number in a register that can be lost or stale (memory, a
 *     callee-saved register, a leaf without a counters' register) is
 *     checked against npaths (frame mode's counter address: note 11).
 *     A counters' address kept in a register
 *     is set at the entry: a jump into a procedure's middle from outside
 *     (no compiler emits one) is not guarded; so a leaf that keeps one
 *     (set beside P, nothing else writes either) counts P unchecked, as a
 *     check could not save a wrong Y; nor is a number known when
 *     instrumenting checked (note 8).  Nothing is dropped silently.
 *  4. Counters.  One 64-bit counter per path of each instrumented
 *     procedure, at PATH_COUNTERS_OFFSET + 8 * (base + r), base given per
 *     procedure by the image's path table (instrument.h); the monitor sends
 *     the nonzero ones by index and the host names them with that table.
 *  5. Metrics (`instrument --paths --metrics [--event E]`, the seed's
 *     flow-sensitive hardware metrics).  Each path's slot is then
 *     struct path_metered (32 bytes: count, cycles, event), at
 *     PATH_COUNTERS_OFFSET + 32 * (base + r), and the magic is
 *     PATH_MAGIC32_METERED (the core's PMU page address, which the
 *     trampolines hold): the monitor tells the layouts apart by it.  The
 *     PMU user page (hw-model/pmu-window.h) is read at a path's start
 *     (the entry trampoline; a backedge's read is both the ending path's
 *     end and the next one's start) and end (an exit's or backedge's
 *     trampoline): cycles and totals[E] (retired for E = retired).  Each
 *     trampoline reads it as soon as it has found the region, before its
 *     bookkeeping (the depth, the register stack): the model's window
 *     (bl-oracle.h note 6) starts before the procedure's first
 *     instruction and ends after the path's last, so an entry's
 *     bookkeeping is inside the path and an exit's is not, and a stack
 *     slot that misses after an interrupt evicted it falls on the same
 *     side of both (reading after the depth load had put drystone's
 *     func_2 158 misses over the truth: dmiss path_metric_error 0.12 ->
 *     0.057; it cost branches 59.4 -> 62.2 % with metrics).  Starts are kept per
 *     activation: a leaf with registers to spare (five it never names,
 *     dead at its entry and exits; four when every exit's number is
 *     known, no P) keeps them in registers, a "kept" leaf: its entry
 *     finds the region (Y) and the PMU page (W) once and reads the start
 *     into S and T (no trampoline stores the magic: the loader sets
 *     PATH_MAGIC32_METERED in every core's region before a metered image
 *     runs, firmware/kernel/loader.c, and the monitor sends no region
 *     where nothing was counted, so a core that ran no instrumented code
 *     sends nothing, as before; a store less at each of the comparator's
 *     3.6 M calls cost qsort 2.6 points, and at every other entry chatter
 *     7.4); a count reads the page first thing
 *     and adds the differences from S and T, a backedge's read becoming
 *     S and T again.  Its P holds 4 x the path number (one s8addq from
 *     Y finds the slot; an add is not folded into the bound: the
 *     running number may be negative before an exit's add).  So a kept leaf's path costs no stores but the
 *     slot's three and no loads but the page's and the slot's.  Other
 *     leaves (no calls, so activations never nest on a core) keep starts
 *     in the core's leaf slots, a frame-mode one (note 11) in its own
 *     frame, the others in the slot of its depth on the third and fourth
 *     stacks.  The end adds end - start to the
 *     path's cycles and event.  Activations on the sink (and exits with
 *     no activation) count their path without metrics: `unmetered`.
 *     What lies between a trampoline's read and the path's own first or
 *     last instruction (finding the region, spills, a kept leaf's slot
 *     loads before its reads, the ldgp pair) is on the other side of the
 *     read than in the model's window (the bias check --paths reports);
 *     everything inside it counts, callees and other trampolines
 *     included (the seed's inclusive path metrics).  Every procedure
 *     keeps a path register (no constant mode): the start must be kept.  A metered procedure's
 *     second register (note 2, with loops) holds the region itself, so
 *     a count finds the PMU page and its start slots without finding the
 *     region again.  The image's path table says the event
 *     (path_table_proc.metrics).
 *  6. setjmp and longjmp.  A longjmp abandons activations that pushed on
 *     the register stack without popping, so depth would stay high and
 *     the setjmp caller's exit would hand its caller a register from the
 *     wrong slot.  In an image that calls a function that returns twice
 *     (setjmp & co., by name, called directly), every push also records sp
 *     (the fifth stack), and each such call is made from a trampoline
 *     that, after either return, pops the slots whose sp is at or below
 *     its own (the abandoned callees entered with sp no higher than the
 *     caller's; the caller's own slot holds its entry sp, above its
 *     frame), then runs the call edge's action (after the call, so the
 *     register setjmp saved gets the edge once per return, as the model's
 *     truth does: bl-oracle.h note 7).  A setjmp caller keeps its path
 *     register in a callee-saved register (longjmp restores it) or needs
 *     none; one that would keep it in memory is left alone
 *     (PATH_SKIP_SETJMP).  A longjmp made while the stack is on the sink
 *     is not unwound (excess stays: later paths on the sink count as
 *     lost, never silently wrong).
 *  7. Paths per context (--both, cct-region.h notes 10-14).  The same
 *     region, at CCT_BOTH_PATHS_OFFSET in the calling context tree's
 *     per-core region and CCT_BOTH_PATHS_SIZE long (its sp stack at
 *     PATH_BOTH_STACK5_OFFSET); its counters are the context-free ones:
 *     a path counts here only when the current call record is not its
 *     procedure's.  Counts only, or with note 5's metrics (--both
 *     --metrics, cct-region.h note 16: metered slots here and in the
 *     records, magic PATH_MAGIC32_METERED of this region's address).
 *  8. Counts only (--paths without --metrics; --both's counts too, at the
 *     activation's counters' base, note 13):
 *     - the loader stores each core's magic (PATH_MAGIC32) before the run,
 *       as for a metered image (note 5), so no trampoline stores it; the
 *       monitor sends no region whose counters and loss counts are all 0.
 *     - known numbers: forward over the CFG from ENTRY's r = add and each
 *       backedge's r = reset, moved by the adds, a block's r is known
 *       where every way in brings the same number (util/instrument-plan.c,
 *       known_numbers); an exit or backedge from such a block counts its
 *       path at a constant slot (from the counters' register, or the
 *       region found from sp) with no P and no range check.
 *     - a leaf's unknown count through its counters' register Y is one
 *       s8addq and the count, the edge's add folded into the displacement.
 *     - a memory-mode count's bad number is counted out of line, and each
 *       trampoline is jump-threaded (a branch to a `br` goes to its
 *       target, a `br` to a `ret` becomes it), so its hot path ends in one
 *       taken branch.
 *     What each took off, and what is left (a loop iteration is a path:
 *     a count and two taken branches each, two fetch groups at least):
 *     README, bench_path_counts.
 *  9. Loops counted in registers (counts only, a procedure whose path
 *     register P is a callee-saved register; util/instrument-plan.c,
 *     choose_loop_regs; a leaf's count through Y is as cheap as the test
 *     below and its entry and exit trampolines, measured: matmul 71 ->
 *     95 % and drystone 73.5 -> 75 % with leaves in, so leaves keep it).  A loop (a header h and the blocks
 *     that reach a backedge into h without passing h) with no call, no
 *     PAL call, no indirect jump and no way in but h (not the procedure's
 *     entry) gets, for each backedge into h whose number is one on every
 *     path from h's reset to it (kv, through the loop's adds: the
 *     iteration path kv + add), a register K of its own: one no caller
 *     keeps ($0-$8, $16-$25, at, pv) that the loop never names, dead on
 *     every edge into h from outside (so dead throughout the loop and
 *     after it), excluded from every trampoline's scratch.  Each edge into h from outside
 *     zeroes K; the backedge's trampoline tests P == kv in P itself
 *     (lda P, -kv(P); bne) and then only adds 1 to K and resets P (no
 *     region, no load, no store; another number, the first iteration's
 *     path entered from outside, is counted as before); every edge out of
 *     the loop (to EXIT too) adds K to the iteration path's counter (at
 *     Y in a leaf, else in the region found from sp).  An exit that falls
 *     out of a conditional branch whose taken edge stays in the loop
 *     would give that branch a trampoline: its adding moves to the end of
 *     the block it falls to (the out edges of that block, which only it
 *     enters and which does not name K); a backedge whose exit falls
 *     beside it is laid out falling through its trampoline (the branch
 *     inverted).  Innermost loops (fewest blocks) take registers first.
 *     Exact: nothing enters the loop but through h's zeroing edges and
 *     nothing leaves it but through an adding edge (an interrupt's handler
 *     saves K with every register; no call means no longjmp out of the
 *     loop and no deeper activation on the core); a count found P == kv
 *     names the same slot the ordinary count would.  Until an exit adds K
 *     the counter lags the truth; the monitor reads the region after the
 *     run.  A loop that never exits (a core spinning at the end of the
 *     run) would leave K uncounted: none of the workloads does.  A loop
 *     note 10 takes is not also counted here; leaves and memory-mode
 *     procedures take only note 10's.
 * 10. Loops counted by an induction variable (counts only, every mode
 *     with a path register; util/instrument-plan.c, try_iv_loop; tried first,
 *     innermost first).  A loop L (note 9's) that is a chain h -> ... -> t
 *     with one backedge t -> h, every other edge inside it acting none
 *     (so P is the same number all through L), with no call, PAL call,
 *     indirect jump or halt, entered only at h, and in which one register
 *     v is written once, by v += s with s = +-2^j (lda v, s(v); addq,
 *     subq, addl or subl v, lit, v): its backedge carries no code at all (P keeps the
 *     number L was entered with), so an iteration runs exactly the
 *     original's instructions.  A register K as note 9's (no caller's, not
 *     named in L, dead on every edge into h from outside) gets v's value
 *     on every edge into h from outside.  At a way out from a block at
 *     chain position p (the increment's at q), the backedges taken since
 *     the entry are n = (v - K) / s - (p >= q): with n > 0 the first of
 *     them is counted as the backedge's action counts it (P + add, P the
 *     number L was entered with; P = reset, as the original's P would be),
 *     the n - 1 others add to the iteration path's counter (reset + add);
 *     then the exit's own action.  An exit that falls out beside a branch
 *     staying in L would put a trampoline on that branch: it moves to the
 *     first instruction of the block X it falls to (moved into a
 *     trampoline; when that instruction cannot move, a branch or X one
 *     instruction long, to X's out edges, X then writing neither v nor K
 *     and making no call); every other way into X then makes that count
 *     right: from L with no action, K moves by s when its (p >= q)
 *     differs from the fall-out's; from L with an action, it counts on
 *     its edge first; from outside L, K = v - s (p >= q of the fall-out),
 *     so that none counts.  Exact: v changes only by its increment inside
 *     L and K only at these edges, n is the number of complete iterations
 *     on every way out (mod 2^64, so any trip count a run can reach; for
 *     a longword increment, addl or subl, whose v wraps at 32 bits, the
 *     difference is taken mod 2^32: exact while one entry's iterations
 *     stay below 2^32 / |s|, which a 32-bit counter passes only by
 *     wrapping round: C's int loops, in which GCC emits addl, cannot;
 *     taking them in cut listmark's --paths overhead 28.9 -> 25.1 %), and
 *     the truth's paths are the ones counted: the iterations (h's reset
 *     through t) and the one entered from outside.  The cost of an
 *     iteration is nothing; of an entry, one instruction; of a way out, a
 *     handful (measured by hand: parallel 233 -> 0.2 %, matmul 70.9 ->
 *     2.6 %, copy 35 -> 5.2 %, compress 111 -> 35 %, drystone 73.5 ->
 *     38.6 %; what is left there is procedures' entries and exits).
 * 11. Frame mode (--paths, with or without --metrics; --both without;
 *     util/instrument-plan.c, frame_plan; instrument-pmode.c,
 *     put_frame_entry, put_frame_count and put_fmem_action).  A procedure with calls (not a leaf, not constant,
 *     calling no function that returns twice) whose own stack frame can
 *     grow keeps its register stack slot in that frame instead: frame_plan
 *     accepts it when sp is written only by `lda sp, -N(sp)` (the frame
 *     made; N one multiple of 16 everywhere) and `lda sp, N(sp)` (dropped),
 *     each where every way in has sp the caller's, or the frame's; sp is
 *     read only as the base of a load or store that stays inside the frame
 *     ([0, N)) while it is made, or at or above sp (the caller's frame:
 *     incoming arguments) while it is not, and an address in the stack
 *     (an lda from sp) is taken only of a local below the frame's top 48
 *     bytes, with the frame made: a varargs procedure saves a0-a5 there and
 *     its va_start takes N - 48, from which va_arg walks on into the
 *     incoming arguments, which the grown frame would move (valuediff's
 *     printf printed wrong arguments before this rule; refusing every lda
 *     from sp put drystone's main, which passes its locals' addresses,
 *     back on the register stack: 29.7 -> 37.4 %); nothing calls while sp is
 *     the caller's, nothing returns or leaves (but a halt) while it is the
 *     frame's.  Every such lda gets N + 16 (patched in place, its original
 *     word in the patch table like every patched one, so the plan numbers
 *     the original), and the 16 bytes at the frame's top (N(sp) in the
 *     frame, -16(sp) while sp is the caller's: no call runs then and a
 *     trap from user mode runs on the kernel stack, so nothing writes
 *     there; a trampoline's own spills go below them then, spill_below)
 *     hold:
 *     - callee-saved mode (note 2): the caller's P (and Y), stored at the
 *       entry and loaded back at an exit: no depth, no sink, no region at
 *       the entry.  A procedure with no backedge keeps in P its path's
 *       counter's address (the region + PATH_COUNTERS_OFFSET + 8 x (base +
 *       number), built at the entry, moved by 8 x each add), so an exit
 *       counts at one displacement from P.  That count is not checked
 *       against npaths (P is set at the entry, moved only by the adds and
 *       comes back from every callee: callees keep a callee-saved register,
 *       and a frame-mode one restores the caller's exactly), but for one
 *       case: a callee in register-stack mode on the sink hands back
 *       PATH_POISON (note 3), which as an address is at or above 2^28, past
 *       every counter, so one test (srl 28; bne) sends it to the stub that
 *       counts it as lost.  With loops P is the number and Y (when note 2
 *       gives one) the counters' address, counted checked as before.
 *     - memory mode (no callee-saved register to spare, compress's
 *       compress): P itself, in the procedure's own frame rather than on the
 *       register stack: an add loads, adds and stores the slot, a count
 *       loads it (none when the number is known: note 8) and is checked.
 *     A longjmp abandons frame-mode activations with their frames, nothing
 *     to unwind; a setjmp caller keeps the register stack (note 6).
 *     Likewise a loopless leaf (counts only) keeps its counter's address in
 *     its P from the entry on: its exit is the counter's three
 *     instructions (no region, no shift, no check: a leaf makes no call,
 *     so nothing but its own adds moves P).  What it took off
 *     (bench_path_counts, paths18 at 50241fd against paths17): chatter
 *     85.8 -> 53.4 %, drystone 38.6 -> 29.7 %, compress 34.9 -> 24.5 %,
 *     listmark 29.97 -> 28.4 %, path_count_error 0 on all.  The core's
 *     4-wide fetch makes a trampoline's length in fetch groups what costs,
 *     not its dependence chain: building the counter's address beside the
 *     region (a chain of four instead of five, one instruction more) cost
 *     chatter 44 -> 51 %.
 *     With metrics (--paths --metrics) the frame grows by 32 bytes
 *     (FRAME_SLOTS_METERED): the two slots above also hold the path's
 *     start (cycles, the event; note 5), which the entry stores after
 *     its read, a backedge replaces with its own and an exit takes its
 *     differences from; a callee-saved P with no backedge is its path's
 *     metered slot's address (moved by 32 x each add) and the second
 *     slot, which has no Y to keep, holds the PMU page's address, so
 *     the exit reads the page with one load and never finds the region
 *     (chatter 107 -> 99.3 %); else Y keeps the region; a memory-mode P
 *     is in the first slot.  So no activation is
 *     on the register stack: no depth, no sink, none unmetered.  A
 *     metered induction-variable loop's fixup (note 17) restarts the
 *     path in those slots.  Measured (bench_path_counts' commands by
 *     hand, deterministic runs, modelled user cycles, --paths --metrics,
 *     with the magic no longer stored, note 5): chatter 175.7 ->
 *     108.3 %, drystone 129 -> 115.7 %, compress 105 -> 85.1 %,
 *     listmark 91.3 -> 87.8 %, manypaths 22.8 -> 14.7 %, the others
 *     within 0.4 points; path_count_error 0 on each.
 * 12. The depth has a cache line of its own (offset 128; it was at 8).
 *     The region, the core's PMU page and, with --both, the CCT core
 *     state all lie at multiples of 64 KiB, so their first lines share
 *     one set of the model's 2-way, 32 KiB-a-way L1 D-cache: the PMU
 *     page's cycles (16), the CCT core's `cur` (16) and the depth (8)
 *     were three lines for two ways, and a --both --metrics memory-mode
 *     backedge, which reads all three, missed twice every time (branches'
 *     run_once: 8.4 cycles an execution, 8.8 M cycles, 22 points of its
 *     overhead; measured by hand with the bench's commands, 105.7 M ->
 *     95.1 M user cycles, counts still exact).  Line 2 of each (128-191)
 *     holds nothing else hot: the PMU page's counter configuration, the
 *     CCT core's reserved words.
 * 13. --both's counts (cct-region.h note 17) run this file's counting
 *     code (notes 2, 8-11) with one change: what --paths keeps as its
 *     counters' address (a leaf's Y, or P itself in a loopless one; a
 *     callee-saved P's second register Y, which --both gives every such
 *     procedure; the frame's second slot of a memory-mode procedure in
 *     frame mode, which --paths leaves unused) holds the activation's
 *     counters' base, its call record's or the context-free counters'
 *     from `base`, found at the entry.  A number known when instrumenting
 *     counts at a constant offset from that base only where the base is
 *     exact (a leaf's Y, a frame's slot); a callee-saved Y may be the
 *     sink's (note 3), so there the count goes through P, checked.  A
 *     loop register (notes 9, 10) adds at the base too.  With --metrics
 *     only a kept leaf (note 5: with P and Y, five registers) does the
 *     same, Y its metered slots' base and no region kept; the others
 *     count as cct-region.h note 12 says.
 * 14. Hashed counting (counts only; util/instrument-count.c, put_hash_count).  A
 *     procedure whose numbering has more than BL_MAX_PATHS paths (ball-
 *     larus.h note 6, BL_TOO_MANY: newlib's _dtoa_r, 1.3e13, and qsort,
 *     5e7; manypaths' decide, 2^26) cannot have a counter per path;
 *     `instrument --paths` counts it in the core's hash table of (key,
 *     count) slots instead, a key being PATH_HASH_KEY(id, path): the path
 *     number shifted up 8 bits over id + 1, id the procedure's hashed
 *     ordinal (its path table entry's `base`, with PATH_HASHED in
 *     `instrumented`; at most PATH_HASH_MAX_PROCS of them, else
 *     PATH_SKIP_NO_ROOM, each with fewer than PATH_HASH_MAX_NPATHS paths,
 *     else PATH_SKIP_TOO_MANY, as under --both and with --hash-slots 0).
 *     With --metrics only when asked (--hash-slots N), and then counts
 *     only (a slot holds a key and a count): a metered image's array
 *     takes 32 bytes a path, leaving qsort's table 2048 home slots for
 *     its 4396 distinct paths, so the rest counted lost (bench_path_
 *     counts, 14:31-15:00 UTC: its metered path_count_error was no longer
 *     0); by default a metered image leaves such procedures alone.
 *     A key is never 0, so a 0 key is an empty slot.  Its path register
 *     is a leaf's own or a callee-saved one (note 2; no counters'
 *     register, no loop registers) when it has fewer than PATH_POISON
 *     paths (a poisoned register must not be a number), else in memory
 *     (on the register stack, or in its own frame: note 11, which keeps
 *     a callee-saved mode's caller's P too), 64 bits wide: increments
 *     past an ldah's reach are built whole (five instructions) and added;
 *     a number known when instrumenting (note 8) is set whole.  A
 *     count checks the number against npaths (bad_paths), then hashes
 *     the number (Knuth's multiplicative hash): the low 32 bits of n *
 *     (PATH_HASH_MULT + 2 x id), n the number (its halves xored when it
 *     can pass 2^32), their top log2(hash_slots) bits the home slot (the
 *     procedure's own multiplier keeps two procedures' small numbers
 *     from sharing home slots); it looks at PATH_HASH_PROBE slots from there on in order
 *     (linear probing with a bounded probe; the table has PATH_HASH_PROBE
 *     - 1 slots past its home slots, so no probe wraps) and increments
 *     the slot holding its key or claims the first empty one; a probe
 *     that finds neither counts the path in lost_paths.  (Probing an
 *     aligned 8-slot bucket alone lost 10 of qsort's 7.3 M path
 *     executions: 4396 keys in 1024 buckets overflow some.)  So every
 *     execution of a hashed procedure's path is counted in its slot, or
 *     counted lost, or (a bad number) in bad_paths: never dropped.
 *     Bounds: the table lies in the counters' space after the image's
 *     array counters, [hash_at, hash_at + 16 x PATH_HASH_TABLE_SLOTS(
 *     hash_slots)) with hash_slots a power of two, PATH_HASH_MIN_SLOTS <=
 *     hash_slots <= PATH_HASH_MAX_SLOTS, the largest that fits before
 *     PATH_STACK5_OFFSET (or fewer: `instrument --hash-slots N`); the
 *     image reserves the smallest table's room from its array counters
 *     so that one always fits.  The instrumenter knows the table only
 *     after the array counters, so it patches the geometry into the
 *     hashed trampolines last; the trampoline that claims a slot stores
 *     hash_at and hash_slots in the core's state, and the monitor
 *     (cct-drain.c note 7) sends the array counters below hash_at and the
 *     table's keys as PATH_HASH frames.  Without a table (no hashed path
 *     claimed a slot on the core) hash_slots is 0, as the loader left it.
 * 15. Hashed counting per calling context (`instrument --both`, counts
 *     only; util/instrument-count.c put_hash_key_count).  --both counts a
 *     procedure with too many paths for an array (note 14) in the hash
 *     table of its core's --both path region (cct-region.h note 11), a
 *     key carrying the context the path ran in: PATH_HASH_CTX_KEY(ctx, id,
 *     path) = path << 20 | ctx << 8 | (id + 1), ctx the id + 1 of the call
 *     record current at the count when that record is the procedure's
 *     (cct-region.h note 12's test: cur, or a leaf's leaf_rec, which its
 *     exits clear; the record's id and flags are one quadword), else 0:
 *     context-free (no record, the overflow record, a tail call, a leaf
 *     called with the stack full, or a procedure the instrumenter has no
 *     record of, whose keys always carry 0).  Its records have no path
 *     counters (npaths 0 in the procedure table): the table is its only
 *     counter.  The count is note 14's (the number checked against
 *     npaths, bad_paths; its home slot the number's hash, the probe and
 *     the claim) with the key PATH_HASH_CTX_KEY: the context, in a
 *     register, goes in beside the number after the multiply, so its
 *     loads are off the home slot's chain (a path's contexts share its
 *     home slot and probe on from it; qsort 152.4 -> 141.9 % when the
 *     hash stopped including the context, which also made its number pass
 *     2^32 and its high half be xored in).  A procedure in frame mode
 *     (memory mode in its own frame, note 11) finds its context once at
 *     its entry and keeps it in the frame's second slot, as --both's
 *     counters' base is kept there (each count one load: qsort 188.7 ->
 *     152.4 %); the others read it at each count.  Exact as
 *     cct-region.h note 12 is: the record current when a path ends is the
 *     one current at its procedure's entry.  Bounds: a record id + 1 fits
 *     12 bits (a --both core holds fewer records, asserted), a path 44
 *     bits (PATH_BOTH_HASH_MAX_NPATHS; newlib's _dtoa_r has 1.3e13 paths,
 *     below 2^44 = 1.8e13; a procedure with more is left alone,
 *     PATH_SKIP_TOO_MANY), so a key fills 64 bits and is never 0.  No
 *     frame mode, no counters' base (cct-region.h note 17): P is the
 *     number, as in note 14.  The table lies after the context-free array
 *     counters, up to PATH_BOTH_STACK5_OFFSET, or to the region's end when
 *     the image makes no direct call to a function that returns twice
 *     (note 6's sp stack is then never written): the path region is
 *     CCT_BOTH_PATHS_SIZE (128 KiB) long, the counters start 16.3 KiB
 *     in, so 4096 home slots (4159 with the probe's tail, 65 KiB; 8192
 *     never fit) need at most 5980 array counters (5469 with the sp
 *     stack), 2048 at most 10078, and fewer home slots past that (note
 *     14's geometry: a power of two).  qsort's image has 5654 array
 *     counters: 4096 home slots for its qsort()'s 4396 distinct paths
 *     (one context), so the bounded probe counts 279 of its 7.3 M path
 *     executions lost (every count it keeps is exact; --paths with
 *     --hash-slots 4096 loses the same); --paths' 256 KiB region gives
 *     it 8192 and loses none.
 *     So --both hashes only when asked: `--hash-slots N` sets the most;
 *     without it, or with 0, such procedures are left alone (as
 *     --both --metrics does: a metered slot is 32 bytes).  A full probe
 *     counts the path in lost_paths, as in note 14: never dropped.  The
 *     monitor (cct-drain.c note 8) sends a key with a context as a
 *     CCT_PATHS entry (record = ctx - 1, the procedure's path number), one
 *     without as PATH_HASH (note 14's ordinal and number), so the host
 *     stores them per context in cct_path_counts and context-free in
 *     path_counts as --paths' (link protocol and schema unchanged).
 * 16. Held registers (counts only, --paths and --both; util/instrument-plan.c,
 *     hold_plan).  Millicode (newlib's division, `udivmod`, called with
 *     `bsr $23`) keeps every register for its caller, so no register is
 *     dead where its trampolines run and each one kept its scratch below
 *     sp and took it back (six memory operations a loop iteration).  A
 *     procedure whose P is callee-saved though it makes no call, with a
 *     loop, that names neither sp nor any PAL call, indirect jump or
 *     halt, and leaves only by returns, holds INSTRUMENT_HOLD_REGS
 *     registers it never names: its entry trampoline stores them at
 *     sp - 8, - 16, ... and every return's trampoline loads them back
 *     just before the return; in between they are scratch (and may be a
 *     note 9 loop's K), and the trampolines' own spills go below them.
 *     Exact and safe: nothing between entry and return moves sp or writes
 *     below it (no frame, no call; a trap from user mode runs on the
 *     kernel stack), a return is the only way out, and the register stack
 *     (note 3) is not involved, so even on the sink the caller gets every
 *     held register back.  Measured (deterministic runs, modelled user
 *     cycles): libcheck --paths 85.5 -> 64.4 %, --both 134.7 -> 114.0 %,
 *     qsort --paths 70.6 -> 68.7 %.
 * 17. Metered loops by an induction variable (--paths --metrics, and
 *     --both --metrics in a kept leaf, whose Y is then its activation's
 *     slots' base and so keeps no borrowed registers; util/instrument-plan.c,
 *     try_iv_loop; instrument-pmode.c, put_iv_fixup).  Note 10's loops,
 *     metered: every iteration is the same path (P + add at the first
 *     backedge, then reset + add, the iteration path kidx), so what a run
 *     of them costs is the last backedge's reading less the first's, and
 *     only those two readings need keeping.  Besides K the loop takes
 *     four registers not named in L, first_c/e and last_c/e, and one for
 *     the PMU page (a kept leaf's W serves); K and the page are dead on
 *     every edge into h from outside, as note 10's K (another such loop's
 *     registers may be the same: no two of them run at once, none is
 *     inside another, and each is done at its ways out); a reading's
 *     register may be live there: then it is borrowed, its value kept in
 *     the core's loop_held words from the loop's entry to each way out
 *     (a loop makes no call, so no other activation runs on the core
 *     meanwhile; a trap from user mode keeps every register).  An edge
 *     into h from outside stores the borrowed registers, finds the page
 *     (from sp) and clears first_c; the backedge, which carries no code in
 *     note 10, reads the page into last_c/e and, while first_c is 0,
 *     copies them to first_c/e out of line (a branch not taken after the
 *     first time; a cycle count is never 0): three instructions, no
 *     store, and the branch back, one of the core's fetch groups (two
 *     conditional moves in line made it five, two groups: listmark's
 *     CRC loops 87.8 -> 77.4 %, matmul 67.4 -> 63.1 %; parallel's loop
 *     stays at 100 %: its two taken branches an iteration, into the
 *     trampoline and back, are what cost there).  A way
 *     out works out n as note 10's does; with n > 0 it runs the backedge's
 *     action with first_c/e standing for the page (struct meter's `given`:
 *     the path the loop was entered on ends at the first backedge), starts
 *     the path going on at last_c/e (where its activation keeps its start,
 *     note 5: the model's window has the fixup inside that path, as any
 *     trampoline between a path's reads), and adds n - 1 and last - first
 *     to the iteration path's slot; then, n = 0 too, it loads the
 *     borrowed registers back.  An edge into the way out's block from
 *     outside the loop (note 10's kneut) stores them first, so that load
 *     gives back what they held.  Counts exact as note 10's; metrics as
 *     the reads are (note 5), every iteration measured whole between two
 *     reads at the same place.  Liveness reads millicode calls by GCC's
 *     contract (util/liveness.h note 3), which left parallel's main loop
 *     its registers; borrowing and sharing took matmul's multiply (a
 *     kept leaf, four dead registers) and copy's loops in.  Measured by
 *     hand (deterministic runs, modelled user cycles, --paths --metrics,
 *     overhead before -> after): parallel 721 -> 100 %, matmul 200 ->
 *     68 %, copy 156 -> 4.6 %, compress 215 -> 105 %, drystone 166 ->
 *     129 %, listmark 129 -> 109 %, branches 62.1 -> 49.0 %, qsort 57.7
 *     -> 50.7 %, chatter 177 -> 174 %; path_count_error 0 on each.
 *     Under --both --metrics, a kept leaf's loops so (listmark's crc16's
 *     two, with note 10's longword increments): listmark 179 -> 162 % of
 *     the whole run's user cycles, its counts exact.
 *
 * Invariants
 *  - 0 <= depth <= PATH_SINK; depth == PATH_SINK iff excess > 0.
 *  - the offsets are the asserted ones; counters lie in
 *    [PATH_COUNTERS_OFFSET, PATH_STACK5_OFFSET).
 *  - metered: the region's magic is PATH_MAGIC32_METERED(region), never
 *    PATH_MAGIC32(region); counted = metered + unmetered per path.
 *  - a loop register (note 9) is 0 whenever control enters its loop, and
 *    outside its loop its path's counter holds the path's whole count.
 *  - a frame-mode activation's slots (note 11) hold its caller's P and Y
 *    (or its own P, and with --both its counters' base) from its entry to
 *    its exit.
 *  - an induction-variable loop's K (note 10) holds v's value at the
 *    loop's entry while control is in the loop; past its count (the
 *    exit's, or its sink's), its counters hold every path's whole count.
 *  - a metered one's (note 17): after a backedge, last_c/e hold that
 *    backedge's reading and first_c/e the loop's first backedge's; past
 *    its count the iteration path's slot holds every iteration's metrics.
 *  - a hash table slot (note 14) whose key is 0 has count 0; keys are
 *    distinct within the table; a key lies within PATH_HASH_PROBE slots
 *    of its home slot, and every slot between them holds another key.
 *  - --both (note 15): a key's context is 0 or the id + 1 of a record of
 *    the key's procedure on that core; the counts of a (procedure, path)
 *    over its keys plus what lost_paths took of it are its executions.
 *  - a procedure holding registers (note 16) has their caller's values at
 *    sp - 8 x (i + 1) from its entry trampoline to each return's load.
 */
#ifndef ALPHAPROF_PATH_REGION_H
#define ALPHAPROF_PATH_REGION_H

#include "firmware/abi/cct-region.h"
#include "linker/ram-map.h"

/* A path region's first word holds its own address (low 32 bits): one
 * store of the region pointer a trampoline already has sets it; a zeroed
 * region (0) and a calling context tree's (CCT_MAGIC's low half, not an
 * address in [CCT_PHYS, CCT_END)) never match it. */
#define PATH_MAGIC32(region)    ((uint32_t)(region))
#define PATH_MAGIC32_METERED(region) ((uint32_t)((region) - CCT_PHYS + PMU_WINDOW_PHYS))   /* note 5 */
#define PATH_STACK_SLOTS        512     /* two stacks in the room one of 1024 had */
#define PATH_SINK               PATH_STACK_SLOTS
#define PATH_OFF_MAGIC          0
#define PATH_OFF_DEPTH          128     /* its own cache line (note 12) */
#define PATH_OFF_EXCESS         16
#define PATH_OFF_LOST           24
#define PATH_OFF_UNMATCHED      32
#define PATH_OFF_BAD            40
#define PATH_OFF_UNMETERED      48
#define PATH_OFF_LEAF_CYCLES    56      /* a leaf's path start (note 5) */
#define PATH_OFF_LEAF_EVENT     64
#define PATH_OFF_LOOP_HELD      88      /* note 17: PATH_LOOP_HELD registers' values */
#define PATH_LOOP_HELD          4
#define PATH_STACK_OFFSET       256
#define PATH_STACK2_OFFSET      (PATH_STACK_OFFSET + 8 * (PATH_SINK + 1))   /* a second register per slot */
#define PATH_STACK3_OFFSET      (PATH_STACK2_OFFSET + 8 * (PATH_SINK + 1))  /* path start: cycles (note 5) */
#define PATH_STACK4_OFFSET      (PATH_STACK3_OFFSET + 8 * (PATH_SINK + 1))  /* path start: event */
#define PATH_COUNTERS_OFFSET    (PATH_STACK4_OFFSET + 8 * (PATH_SINK + 1))
/* sp at each push (note 6), at the region's end: the counters keep the
 * offsets a 16-bit displacement reaches, and only images that call setjmp
 * pay the ldah the far slots take. */
#define PATH_STACK5_OFFSET      (CCT_PER_CORE - 8 * (PATH_SINK + 1))
#define PATH_MAX_COUNTERS       ((PATH_STACK5_OFFSET - PATH_COUNTERS_OFFSET) / 8)
/* --both (cct-region.h note 11): the path region is CCT_BOTH_PATHS_SIZE
 * long, its sp stack at its end, its counters context-free (note 7). */
#define PATH_BOTH_STACK5_OFFSET (CCT_BOTH_PATHS_SIZE - 8 * (PATH_SINK + 1))
#define PATH_BOTH_MAX_COUNTERS  ((PATH_BOTH_STACK5_OFFSET - PATH_COUNTERS_OFFSET) / 8)
#define PATH_METERED_SIZE       CCT_PATH_METERED_SIZE
#define PATH_BOTH_MAX_METERED   ((PATH_BOTH_STACK5_OFFSET - PATH_COUNTERS_OFFSET) / PATH_METERED_SIZE)
#define PATH_MAX_METERED        ((PATH_STACK5_OFFSET - PATH_COUNTERS_OFFSET) / PATH_METERED_SIZE)

/* Hashed counting (note 14). */
#define PATH_HASH_PROBE         64      /* slots a count looks at, from its home slot on: the bound */
#define PATH_HASH_SLOT_SIZE     16
#define PATH_HASH_MIN_SLOTS     8
#define PATH_HASH_MAX_SLOTS     8192
/* home slots, then the probe's tail (no wrap-around) */
#define PATH_HASH_TABLE_SLOTS(home) ((home) + PATH_HASH_PROBE - 1)
#define PATH_HASH_MULT          0x9e3779b1u     /* 2^32 / the golden ratio, odd */
#define PATH_HASH_MAX_PROCS     255
#define PATH_HASH_MAX_NPATHS    (1ull << 55)    /* a key's path, and host-tools' negative counter (-1 - key) */
#define PATH_HASH_KEY(id, path) ((uint64_t)(path) << 8 | (uint64_t)((id) + 1))
/* --both (note 15): a key's context, the call record's id + 1 (0: none) */
#define PATH_HASH_CTX_BITS      12
#define PATH_BOTH_HASH_MAX_NPATHS (1ull << (64 - 8 - PATH_HASH_CTX_BITS))
#define PATH_HASH_CTX_KEY(ctx, id, path) \
    ((uint64_t)(path) << (8 + PATH_HASH_CTX_BITS) | (uint64_t)(ctx) << 8 | (uint64_t)((id) + 1))
#define PATH_OFF_HASH_AT        72      /* the table's offset in the region, set by a claim */
#define PATH_OFF_HASH_SLOTS     80      /* its slots; 0: no table */

/* The instrumented image's path table ends the instrumentation section:
 * nprocs x struct path_table_proc (by start), npatches x { u64 pc, u64
 * original word } (every patched instruction), then the trailer
 * { PATH_TABLE_MAGIC, nprocs, npatches }. */
#define PATH_TABLE_MAGIC        0x534854415052504fULL   /* "OPRPATHS" */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct path_core {
    uint32_t magic;             /* PATH_MAGIC32(region) once an instrumented procedure ran */
    uint32_t reserved;
    uint64_t spare;             /* (the depth's first place: note 12) */
    uint64_t excess;            /* activations on the sink slot */
    uint64_t lost_paths;
    uint64_t unmatched_exits;
    uint64_t bad_paths;
    uint64_t unmetered;         /* paths counted without metrics (note 5) */
    uint64_t leaf_cycles, leaf_event;   /* a leaf's path start */
    uint64_t hash_at, hash_slots;       /* the hash table (note 14), once a slot was claimed */
    uint64_t loop_held[4];      /* registers a metered loop borrowed (note 17) */
    uint64_t pad;
    uint64_t depth;             /* activations on the register stack (note 3) */
};

/* A path's slot with metrics (note 5). */
struct path_metered {
    uint64_t count, cycles, event, spare;
};

/* A hash table slot (note 14): key PATH_HASH_KEY(id, path), 0 empty. */
struct path_hash_slot {
    uint64_t key, count;
};

/* path_table_proc.instrumented: counted in the hash table (note 14), its
 * hashed ordinal in `base` */
#define PATH_HASHED             4

/* path_table_proc.instrumented: --both counts this procedure's paths in
 * its call records too (cct-region.h note 12), not only context-free */
#define PATH_PER_CONTEXT        2

struct path_table_proc {
    uint64_t start;             /* the procedure (its symbol's address) */
    uint64_t npaths;
    uint32_t base;              /* first counter */
    uint32_t instrumented;      /* 1 (| PATH_PER_CONTEXT), or 0: why not in `status` */
    uint32_t status;            /* enum path_skip */
    uint32_t metrics;           /* 0: counts only; else 1 + the event (enum pmu_event) read beside cycles */
};

/* Why a procedure is left alone: its numbering cannot be counted (an
 * indirect jump, or more paths than 64 bits number), no counters left (or
 * no hashed ordinal: note 14), its entry instruction cannot move (a
 * branch, or a branch target), or an edge's source cannot (an indirect
 * jump, an odd block end), it calls setjmp (note 6), it is the runtime's
 * own code (instrument.h invariant 5), or it has too many paths for an
 * array and is not hashed (note 14: --metrics, or `--hash-slots 0`; note
 * 15: --both --metrics, or too many for a key with a context). */
enum path_skip { PATH_INSTRUMENTED, PATH_SKIP_NUMBERING, PATH_SKIP_NO_ROOM, PATH_SKIP_ENTRY, PATH_SKIP_EDGE,
                 PATH_SKIP_SETJMP, PATH_SKIP_RUNTIME, PATH_SKIP_TOO_MANY, PATH_SKIP_COUNT };

static inline const char *path_skip_name(uint32_t why)
{
    static const char *const names[] = {"instrumented", "numbering not countable", "no counter room",
                                        "entry cannot move", "an edge's source cannot move",
                                        "calls setjmp with no callee-saved register to spare",
                                        "the runtime's own code",
                                        "too many paths for an array, not hashed (--both --metrics, "
                                        "--metrics, --hash-slots 0; --both: 2^44 paths or more)"};
    _Static_assert(sizeof names / sizeof *names == PATH_SKIP_COUNT, "a name for every reason");
    return why < sizeof names / sizeof *names ? names[why] : "?";
}

/* The host keeps a hashed path's count (note 14) in path_counts beside the
 * array counters', under a negative counter: -1 - its key less the 1 the
 * ordinal carries on the board (path < PATH_HASH_MAX_NPATHS). */
static inline int64_t path_hash_counter(uint32_t id, uint64_t path)
{
    return -1 - (int64_t)(path << 8 | id);
}
static inline void path_hash_uncounter(int64_t counter, uint32_t *id, uint64_t *path)
{
    uint64_t k = (uint64_t)(-1 - counter);
    *id = (uint32_t)(k & 255);
    *path = k >> 8;
}

/* A --both key (note 15) split: the hashed ordinal, the context (its
 * record's id + 1, 0 none) and the path number. */
static inline void path_hash_ctx_split(uint64_t key, uint32_t *id, uint64_t *ctx, uint64_t *path)
{
    *id = (uint32_t)(key & 255) - 1;
    *ctx = key >> 8 & ((1u << PATH_HASH_CTX_BITS) - 1);
    *path = key >> (8 + PATH_HASH_CTX_BITS);
}

_Static_assert(sizeof(struct path_core) <= PATH_STACK_OFFSET, "core state fits before the stack");
_Static_assert(__builtin_offsetof(struct path_core, depth) == PATH_OFF_DEPTH, "depth offset");
_Static_assert(__builtin_offsetof(struct path_core, excess) == PATH_OFF_EXCESS, "excess offset");
_Static_assert(__builtin_offsetof(struct path_core, lost_paths) == PATH_OFF_LOST, "lost offset");
_Static_assert(__builtin_offsetof(struct path_core, unmatched_exits) == PATH_OFF_UNMATCHED, "unmatched offset");
_Static_assert(__builtin_offsetof(struct path_core, bad_paths) == PATH_OFF_BAD, "bad offset");
_Static_assert(__builtin_offsetof(struct path_core, unmetered) == PATH_OFF_UNMETERED, "unmetered offset");
_Static_assert(__builtin_offsetof(struct path_core, leaf_cycles) == PATH_OFF_LEAF_CYCLES, "leaf start offset");
_Static_assert(__builtin_offsetof(struct path_core, leaf_event) == PATH_OFF_LEAF_EVENT, "leaf start offset");
_Static_assert(__builtin_offsetof(struct path_core, loop_held) == PATH_OFF_LOOP_HELD &&
                   sizeof ((struct path_core *)0)->loop_held == 8 * PATH_LOOP_HELD, "loop held offset");
_Static_assert(sizeof(struct path_metered) == PATH_METERED_SIZE, "metered slot layout");
_Static_assert(__builtin_offsetof(struct path_core, hash_at) == PATH_OFF_HASH_AT &&
               __builtin_offsetof(struct path_core, hash_slots) == PATH_OFF_HASH_SLOTS, "hash table offsets");
_Static_assert(sizeof(struct path_hash_slot) == PATH_HASH_SLOT_SIZE && PATH_HASH_SLOT_SIZE == 16,
               "a slot: key and count, a shift by 4");
_Static_assert(PATH_HASH_TABLE_SLOTS(PATH_HASH_MAX_SLOTS) * PATH_HASH_SLOT_SIZE <
               PATH_STACK5_OFFSET - PATH_COUNTERS_OFFSET && PATH_HASH_MAX_SLOTS <= 32767 &&
               PATH_HASH_SLOT_SIZE * PATH_HASH_PROBE < 32768, "the table fits the counters' space; its size and "
               "the probe's end one lda each");
_Static_assert((PATH_HASH_MIN_SLOTS & (PATH_HASH_MIN_SLOTS - 1)) == 0 &&
               (PATH_HASH_MAX_SLOTS & (PATH_HASH_MAX_SLOTS - 1)) == 0, "home slots: powers of two");
_Static_assert(PATH_HASH_MAX_PROCS + 1 <= 256 && PATH_HASH_KEY(PATH_HASH_MAX_PROCS - 1, PATH_HASH_MAX_NPATHS - 1) <
               (1ull << 63), "a key: the ordinal + 1 in 8 bits, below 2^63");
_Static_assert((CCT_BOTH_PATHS_OFFSET - CCT_RECORDS_OFFSET) / CCT_RECORD_HEADER + 1 < (1u << PATH_HASH_CTX_BITS),
               "note 15: every --both record's id + 1 fits a key's context");
_Static_assert(PATH_BOTH_HASH_MAX_NPATHS <= PATH_HASH_MAX_NPATHS && 13000000000000ull < PATH_BOTH_HASH_MAX_NPATHS &&
               PATH_HASH_CTX_KEY((1u << PATH_HASH_CTX_BITS) - 1, PATH_HASH_MAX_PROCS - 1,
                                 PATH_BOTH_HASH_MAX_NPATHS - 1) == ~0ull,
               "note 15: a key is the path, the context and the ordinal + 1 in 64 bits; _dtoa_r's paths fit");
_Static_assert(PATH_HASH_TABLE_SLOTS(PATH_HASH_MIN_SLOTS) * PATH_HASH_SLOT_SIZE + 128 <
               PATH_BOTH_STACK5_OFFSET - PATH_COUNTERS_OFFSET, "note 15: the smallest table fits --both's region");
_Static_assert(PATH_STACK4_OFFSET + 8 * PATH_SINK < 32768, "start slots within one lda displacement");
_Static_assert((PATH_STACK5_OFFSET + 0x8000) % 0x10000 - 0x8000 + 8 * PATH_SINK < 32768,
               "sp slots one ldah and one displacement away");
_Static_assert((CCT_PHYS - PMU_WINDOW_PHYS) % 0x10000 == 0 && CCT_PER_CORE == PMU_WINDOW_PER_CORE,
               "the PMU page is one ldah from the region");
_Static_assert(PATH_MAGIC32_METERED(CCT_PHYS) != PATH_MAGIC32(CCT_PHYS), "the layouts' magics differ");
_Static_assert(sizeof(struct path_table_proc) == 32, "path table entry layout");
_Static_assert(PATH_COUNTERS_OFFSET < 32768, "counters start within one lda displacement");
_Static_assert((PATH_BOTH_STACK5_OFFSET + 0x8000) % 0x10000 - 0x8000 + 8 * PATH_SINK < 32768 &&
               PATH_BOTH_STACK5_OFFSET > PATH_COUNTERS_OFFSET, "--both: sp slots one ldah away, counters have room");
_Static_assert((uint32_t)CCT_MAGIC < CCT_PHYS || (uint32_t)CCT_MAGIC >= CCT_END, "a tree is never a path region");
#endif

#endif
