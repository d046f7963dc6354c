/*
 * The calling-context-tree region: the one definition of the per-core RAM
 * that instrumented images build their calling context tree (CCT, Ammons,
 * Ball, Larus, PLDI 97) in.  Written by the instrumentation (trampolines
 * emitted by host-tools/util/instrument.c, slow path in
 * workloads/runtime/cct.c), read by the monitor (firmware/profiler/cct-drain.c)
 * which sends it over the link, and by nothing else.
 *
 * Plain C structs with fixed offsets (static asserts below): the
 * trampolines are generated machine code that uses the offsets directly.
 *
 * Design notes
 *  1. Where.  Core N's region is CCT_PHYS + N * CCT_PER_CORE
 *     (linker/ram-map.h), mapped read-write for user mode at its own
 *     address.  A trampoline finds it from the stack pointer alone, with no
 *     free register and no system call: each core's user stack is its own
 *     USER_STACK_SIZE slot, so
 *       core   = ((sp - USER_STACK_PHYS) >> log2(USER_STACK_SIZE)) & (MAX_CORES - 1)
 *              = (sp >> log2(USER_STACK_SIZE)) & (MAX_CORES - 1)
 *       region = CCT_PHYS + core * CCT_PER_CORE
 *              = ((sp >> 22) | 60) << 18                  (3 instructions)
 *       pmu    = region - CCT_PHYS + PMU_WINDOW_PHYS       (1 ldah)
 *     because CCT_PER_CORE == PMU_WINDOW_PER_CORE, and the subtraction
 *     drops out because USER_STACK_PHYS is a multiple of MAX_CORES slots;
 *     the mask and the base are one `bis`: for any sp in RAM the slot
 *     number x = sp >> 22 is below 64, and CCT_PHYS >> 18 = 60 has every
 *     bit of x set but the core's two, so x | 60 = 60 + core (asserted
 *     where the code is made, util/instrument.c).  A user sp
 *     starts USER_STACK_TOP_GAP below its slot's end (firmware/kernel/
 *     run.c), so even a frameless procedure at the stack's bottom sees
 *     its own slot, never the next one's first address.  Code that runs on a
 *     stack of its own (workloads/valuediff's native runs) still finds a
 *     region, never a fault: the mask keeps the core in range, its calls
 *     land in that core's tree.  (An sp outside RAM, which no stack has,
 *     would give an address outside the regions: a fault, never a write
 *     elsewhere.)
 *  2. What is instrumented.  Every call that follows the calling standard:
 *     bsr/jsr that link through $26 (ra), outside the runtime's own
 *     code (__alphaprof_cct_* and its helpers, note 15), except `bsr $26, .+4` (a PC read).  The call
 *     instruction at S becomes `br` to a trampoline; the trampoline looks up
 *     the callee's record, pushes a shadow frame, makes the call itself,
 *     and on return pops, accumulates and sets ra = S + 4 before branching
 *     back to S + 4 (the caller's gp reload reads ra).  With --cct (not
 *     --both, whose returns go on in path continuations) the return goes
 *     on past what only reads a known ra or does nothing: a gp reload
 *     right after the call (`ldah $29, x($26); lda $29, y($29)`) is done
 *     by the trampoline, gp set to the value it computes, and unops
 *     after the call or the reload are skipped; ra is set back to S + 4
 *     only where the caller may still read it (util/instrument.c
 *     plan_back: compiled code reloads its own ra from its frame, a call
 *     writes it; ra is dead past a reload); either value is one lda from
 *     ra, the trampoline's own return address, when that reaches it
 *     (put_back).  Scratch registers
 *     are the temporaries ($1-$8, $22-$25, $28): dead at a standard call and
 *     after its return.  A call is therefore what the model's oracle counts
 *     too: a tail call (br/jmp) is no call, its callee's calls belong to the
 *     record of the procedure it replaced.
 *  3. Records.  A call record per (parent record, call site, callee entry):
 *     call sites are distinguished; the callee is the procedure's entry
 *     (a call to the no-gp entry entry+8 counts as entry).  Recursion folds
 *     onto the nearest ancestor with the same callee, itself included (the
 *     seed's equivalence).  Every record has one slot per call site of its
 *     procedure (the instrumenter numbers them); slot k caches the record
 *     (child or folded ancestor) last reached from site k, with its callee
 *     (and leaf flag, for a jsr's test), the calls counted for it there
 *     (note 9) and, with metrics, its leaf calls' metrics (note 3a); the
 *     trampoline
 *     uses it only when the current record is of the site's procedure (a
 *     site reached through a tail call belongs to another's record: the
 *     record's flags hold its procedure's ordinal in the table, one `ldl`
 *     and one `lda` from a test) and,
 *     for jsr, the cached callee is the target; else it takes the slow path
 *     (__alphaprof_cct_lookup: children list, then ancestors, then a new
 *     record).  Tree children are linked from their parent; a folded call
 *     is only cached in the slot.
 *  3a. Leaf calls.  A call whose callee makes no calls and never leaves
 *     its own code but by returning (the instrumenter's CCT_PROC_LEAF:
 *     no standard call, no branch out of its range, no `jmp`; millicode
 *     calls through another link register are fine; never setjmp and
 *     the other functions that return twice, whose second return must
 *     unwind what a longjmp abandoned, note 8) needs no shadow
 *     frame: nothing under it looks at `cur`, and it cannot recurse.  Its
 *     record carries CCT_REC_LEAF (set by the slow path from the
 *     procedure table); the trampoline, when the record it found has it,
 *     counts the call, makes it from a call instruction of its own and
 *     comes back with no frame pushed (note 9).  With metrics (note 4) a
 *     leaf must also leave $22-$25 alone (the instrumenter's CCT_KEPT_REGS:
 *     no instruction of it writes one, no millicode or PAL call; a leaf
 *     that does is called with a frame, as a procedure that calls), and
 *     a call the fast lookup found (its slot is the current record's)
 *     keeps the PMU page's address, the current record and the PMU
 *     cycles and retired at the call in those four registers (the
 *     lookup of a call that may be a leaf's, a bsr's to a known leaf or a
 *     jsr's, loads the current record into $23 itself, the slow path's
 *     stub copying it there, and computes the PMU page beside the
 *     region, so nothing is copied and the two PMU reads come last,
 *     right before the call); on return
 *     it adds the differences to the slot's `cycles` and `retired`, which
 *     belong to the slot's record as its `calls` do (the slow path adds
 *     them to the record before it points the slot at another, the
 *     monitor before it sends the tree): no store before the call but the
 *     count, no load after it but the PMU page's and the slot's, no
 *     region to find again.  A leaf call the slow path found (its slot
 *     may be another's) keeps the record and the PMU counts in the core's
 *     leaf_* fields instead and adds the differences to the record.  A
 *     leaf that never returns (longjmp) leaves the registers and leaf_*
 *     fields stale: nothing reads them again, and its time is not added,
 *     as for frames a longjmp abandons (note 8).  A leaf needs no
 *     full-stack test on the fast path (note 9 says why).
 *  4. Metrics (--metrics, note 9).  At a framed call the frame keeps the
 *     PMU page's cycles and retired counts; at the return the
 *     differences are added to the record's inclusive metrics only when
 *     its `active` count drops to 0 (the outermost activation of a folded
 *     record), so recursion never counts twice; a leaf's call (note 3a)
 *     keeps them in registers (fast path) or the core (slow path), and a
 *     leaf's record is never active twice (it calls nothing).  Exclusive
 *     = inclusive minus the tree children's inclusive (computed on the
 *     host).  Metrics include the instrumentation's own cycles.
 *     A framed return reads the PMU page first, right after the return
 *     (the end of its window: 5 instructions after the `ret`, the region
 *     and the page's address, where the pop came first and made it 15),
 *     and adds (record + PMU now) - kept, so the loads of the record and
 *     of the frame, each after a load of its base, meet one step before
 *     the store.
 *  4a. A callee never active twice.  With metrics, a bsr to a procedure
 *     that can never be active twice at once (util/instrument.c
 *     no_reentry: no code it reaches by calls and branches, to a fixed
 *     point, calls or branches back into it, and none of that code makes
 *     a jump, a call through a register or a PAL call, which could go
 *     anywhere; a procedure's code is its symbol's range, as for a leaf)
 *     needs no activity count: every activation of its record is the
 *     outermost (a lookup folds a call onto a record only when that
 *     record's procedure is active, and a jsr's records are its own
 *     site's), so its trampoline neither counts nor tests `active` and
 *     the return adds the frame's time to the record every time: 7
 *     instructions and a load chain less a call (drystone's func_2:
 *     60.7 -> 59.1 %, and the framed call's window 15 -> 12
 *     instructions).  The overflow record (note 5) stands for calls to
 *     many procedures, which nest: when the slow path returns it, the
 *     trampoline makes the call from a second framed call of its own
 *     that counts activity as note 4 says (the site table lists it).
 *     Nothing reads the `active` of such a record: the unwinder (note 8)
 *     may take it below 0 when a longjmp abandons its frame.
 *  5. Bounds.  The shadow stack holds CCT_STACK_FRAMES frames; a call made
 *     when it is full is counted in `skipped_calls`, is not pushed, and is
 *     made by a second call instruction of the trampoline whose return
 *     pops nothing (every call under it finds the stack full too: LIFO).
 *     Records are allocated from [CCT_RECORDS_OFFSET, CCT_PER_CORE); when
 *     full, a new context's calls land on the core's overflow record and
 *     `overflow_calls` counts them.  Nothing is lost silently.
 *  6. Life cycle.  RAM starts zeroed; before a run the monitor clears the
 *     used part of every region an earlier run initialised (loader.c),
 *     and, for an image instrumented for CCTs (its payload ends with the
 *     site table's trailer, or with --both the path table after it), points every core's `cur` at the region
 *     itself (for any other image it sets `cur` back to 0: a path
 *     region's word there counts).  The region read as a record is one
 *     no call site matches (its flags, the high half of `procs`, are 0
 *     until the core is initialised; its callee, the magic, 0), and every
 *     word a lookup reads from it lies inside the region; so the
 *     trampolines never test `cur` for 0, and the first instrumented call
 *     on a core takes the slow path, which initialises the core (magic,
 *     root, overflow record).
 *     After the image exits, the monitor drains every core whose magic is
 *     CCT_MAGIC as CCT frames (firmware/abi/link-protocol.h).
 *  7. Paths (--paths) are built with a region layout of their own,
 *     firmware/abi/path-region.h (a register stack instead of the shadow
 *     frame's `path`, which stays reserved).  Paths per context (--both)
 *     are notes 10-14.
 *  8. Non-local returns (longjmp).  A frame keeps the caller's sp.  A
 *     return finds its frame on top when the frame's sp is its own (the
 *     calling standard restores sp); frames below its sp belong to
 *     activations a longjmp abandoned: they are popped first (their
 *     records' `active` counts go down, their time is not added), and a
 *     return whose frame is gone (setjmp's second return) pops nothing.
 *     The model's oracle takes the same view: a return to no frame's
 *     return address goes back to the stack depth of the last call that
 *     had that return address.  Without metrics (note 9) only the
 *     returns of calls that may land a longjmp test sp: a jsr's (its
 *     callee unknown) and a bsr's to setjmp and the other functions that
 *     return twice.  A longjmp lands at such a return (setjmp's second),
 *     which drops the frames it abandoned, so every other return finds
 *     its own frame on top (a setjmp called through a scratch register,
 *     left alone by the instrumenter, would break this; compilers call
 *     it directly).
 *  9. Counts only or metrics.  `instrument --cct` builds a tree of call
 *     counts; `--cct --metrics` adds notes 3a's and 4's inclusive cycles
 *     and retired.  The procedure table's flags say which (CCT_METRICS),
 *     the slow path copies them into the core's flags when it initialises
 *     the core, and the monitor sends records' cycles and retired only
 *     with it (the CCT frame's `metrics`, link-protocol.h).  Without
 *     metrics a trampoline reads no PMU counter and keeps no `active`
 *     count (it exists to add time once per folded activation): after
 *     the lookup and the full-stack test (note 5) it counts the call; a
 *     callee that may call gets a frame of the parent record and sp only,
 *     popped at the return (the unwinder of note 8 pops without counting
 *     activity); a leaf callee (note 3a: known from the procedure table
 *     for bsr, from the slot for jsr) gets no frame and nothing
 *     after its return but ra = S + 4 and the branch back.  With metrics
 *     the same, plus the PMU counts and activity of notes 3a and 4.  In
 *     both modes the fast path
 *     counts in the current record's slot (its `calls`), so the count
 *     needs no load of the callee's record (a dependent load less, the
 *     core's critical path): the slow path adds a slot's calls to its
 *     record before it points the slot at another, the monitor adds every
 *     slot's calls to its record before it sends the tree, and a call
 *     the slow path found counts in the record itself.  A leaf's call
 *     found by the fast lookup needs no full-stack test: the current
 *     record is its caller's true one even above a full stack (the calls
 *     not pushed since then are of other procedures, or fold onto it);
 *     only the slow path, which could be wrong there, tests it.  The fast
 *     lookup tests only what the call needs: every site its current
 *     record's procedure (note 3); a jsr the slot's callee, which also
 *     finds an empty slot (its callee is 0; a jsr through 0 faults either
 *     way), and loads the slot's record only for a framed call; a bsr to
 *     a known leaf the slot's leaf bit, set only when the slot holds the
 *     leaf's record (the overflow record has none: the slow path again),
 *     so it never loads the record; other bsr's the record for 0.  So a
 *     call to a leaf through the fast path is 12 instructions to the call
 *     (bsr) or 15 (jsr), three or four of the core's 4-wide fetch
 *     groups, and 3 after the return.  With metrics the trampoline is
 *     the same code (one generator, util/instrument.c put_trampoline)
 *     with notes 3a's and 4's metric steps added: a leaf's fast call 3
 *     instructions more before the call (the PMU page, its two reads:
 *     15 to a bsr's call) and 10 after it (2 PMU loads, 2 slot loads and
 *     stores; the core model's two memory pipes and the load chains
 *     after the region's three steps are what cost there, measured with
 *     the model: a dependent chain before the call costs more than one
 *     after it, which overlaps the caller's code; the copy of cur after
 *     the reads cost drystone 5 points, 65.8 % against 60.8 %; moving
 *     the slot's loads and the subtraction of the start before the call,
 *     6 instructions after it instead of 10, cost 3.4 points more, one
 *     slot load alone 1.7).  A framed return reads the parent from the
 *     frame below `top` before it decrements it.  The callee is
 *     still called from the trampoline (the model's oracle counts a call
 *     where a call instruction retires; the site table maps it back), not
 *     branched to with ra preset.  Counts are the same either way.
 * 10. Paths per context (`instrument --both`, the seed's flow and context
 *     sensitive profile; counts only here, --both --metrics: note 16).  The
 *     image is instrumented for both at once: every call as in note 9
 *     (counts only) and every procedure's Ball-Larus paths as with
 *     --paths (path-region.h notes 1-3, 6: the same numbering, modes and
 *     register stacks), one trampoline segment.  A call site whose call
 *     edge carries a path action gets the path trampoline at S, which
 *     runs the action and branches on to the call's CCT trampoline; a
 *     call to a function that returns twice is made by its CCT
 *     trampoline, which comes back (after either return) to a path
 *     continuation that unwinds the register stack and runs the edge's
 *     action (path-region.h note 6) before S + 4.
 * 11. Layout (one per-core region, magic CCT_MAGIC_BOTH set by the slow
 *     path): the core state, shadow stack and records as above in
 *     [0, CCT_BOTH_PATHS_OFFSET); the path region of path-region.h
 *     (its core state, register stacks, context-free counters, sp
 *     stack) in [CCT_BOTH_PATHS_OFFSET, CCT_PER_CORE), laid out as there
 *     but CCT_BOTH_PATHS_SIZE long (its sp stack at its own end).  Both
 *     start at a multiple of 64 KiB, so a trampoline finds either with
 *     one ldah from the per-core offset, and the records' from the path
 *     region's with one more.
 * 12. Counters per context.  The procedure table gives each procedure's
 *     npaths (CCT_BOTH in its flags); the slow path makes every record of
 *     a procedure with room for its npaths 64-bit counters after its
 *     slots (cct_record_total: the record says npaths, so the monitor
 *     walks records by size).  `cur` is the record of the procedure
 *     running, but for a leaf called without a frame (notes 3a, 9): its
 *     call trampoline keeps the leaf's record in the core's `leaf_rec`
 *     (fast and slow path, before the call), the leaf's path
 *     trampolines read that instead, and clear it (at its entry, note
 *     17; a leaf with no entry code, at its exits), so a leaf
 *     entered otherwise (a tail call) finds none.  A path of procedure P
 *     ends (its exit or backedge trampoline) by counting r at that record
 *     + cct_record_size(nslots of P) + 8 r when the record's flags say P
 *     (the ordinal test of note 3, with the leaf bit for a leaf), else in
 *     the path region's context-free counter of (P, r) (path-region.h
 *     note 4): P entered by no standard call (note 2), so cur is the
 *     record of its caller: a tail call, or millicode called through
 *     another link register (division); a core with no record yet (cur 0), the
 *     overflow record (note 5), or P whose slots put its counters beyond
 *     one lda's reach or with more than CCT_BOTH_MAX_CTX_PATHS paths, or
 *     CCT_BOTH_MAX_CTX_METERED with --metrics (its records would fill the
 *     area: with 256 paths' 32-byte metered slots, 84 procedures per
 *     context, listmark's records filled it and 4 calls landed on the
 *     overflow record; 64 still overflowed; with 32 none, but drystone's
 *     per-context metrics were left with its one-path procedures, whose
 *     few cycles and misses a trampoline's read moves most: its
 *     context_path_metric_error dmiss went 0.045 -> 0.122; 48: 76
 *     procedures per context, none on the overflow record, drystone
 *     0.045 again); the path table says which procedures
 *     count per context: PATH_PER_CONTEXT).  Recursion folded onto P's
 *     record counts there, as the folding says.  With the shadow stack full (note 5) cur stays the
 *     record current when it filled: a P path counts there only if that
 *     record is P's, and every P activation under a P record folds onto
 *     it, so that is P's context too.  A leaf called with the stack full
 *     by the slow path (note 5's unpushed call) gets no leaf_rec: its
 *     paths count context-free while the truth has them in a context
 *     (context_path_error shows them).  Every path is counted once, in a
 *     context or context-free; none is dropped.
 * 13. Truth: the model counts each path where its last instruction
 *     retired, keyed by the calling-context oracle's current record then
 *     (cct-oracle.c); `check --paths` on a --both run compares, per
 *     procedure and path, the sum over contexts and the context-free
 *     counter with the oracle's path count, and each context's count with
 *     the oracle's count for the matched context.
 * 14. Drain: the monitor sends the tree (CCT frames) and then every
 *     record's nonzero path counters (CCT_PATHS frames, link-protocol.h;
 *     with metrics CCT_PATHS_METERED, note 16), then the path region's
 *     context-free counters as PATHS frames, then its hash table's
 *     (path-region.h note 15: a procedure with more than 2^24 paths,
 *     counted per context in the table, its key carrying the record's id;
 *     its records have no path counters): PATH_HASH frames for the keys
 *     with no context, CCT_PATHS for the others.
 * 15. The runtime is the __alphaprof_cct_* procedures and every procedure
 *     their code branches into, to a fixed point (util/instrument.c
 *     mark_runtime, instrument_runtime_entries); not the prefix alone.
 *     The compiler may keep a static helper of workloads/runtime/cct.c
 *     out of line under its own name (whether it does depends on the
 *     helper's size: four nops in new_record were enough).  Taken for a
 *     workload procedure, such a helper was (a) path-instrumented, its
 *     paths counted from inside the slow path, in whatever record was
 *     current, and (b) planned (util/path-plan.c), so the model's oracle,
 *     seeing no planned code between a call and the helper's entry, took
 *     it for the callee of the call being served (bl-oracle.h note 1):
 *     calltree 16 under --both gave path_count_error 100 and
 *     context_path_error 86, the tree still exact.  The runtime's code
 *     has no call instrumented and no path numbered or planned (the
 *     procedure table lists it like any procedure: no trampoline calls
 *     it); new_record stays out of line on purpose (noinline) so every
 *     image exercises the rule.  A runtime that branched into a workload
 *     procedure (an implicit memset) would make that procedure the
 *     runtime's too, its own calls uncounted: cct.c keeps to leaf code
 *     (no calls out of the file), and instrument refuses, in one line
 *     naming both, an image whose own code branches into a runtime
 *     procedure named without the prefix.
 * 16. Paths per context with metrics (`instrument --both --metrics
 *     [--event E]`).  The call tree stays counts only (note 9); each
 *     path gets path-region.h note 5's metrics: its per-context counter
 *     and its context-free one are struct path_metered (count, cycles,
 *     event; CCT_PATH_METERED_SIZE bytes), the starts kept as there (no
 *     kept leaves: their registers would be the --both leaf test's), the
 *     path region's magic PATH_MAGIC32_METERED of its own address.  The
 *     procedure table's flags carry CCT_BOTH_METERED, and its npaths (so
 *     every record's) counts 8-byte words, 4 per metered path: the
 *     runtime allocates records as for counts (its code unchanged), and
 *     the monitor, told by the path region's magic, divides by 4 and
 *     steps 32 bytes, sending each record's nonzero slots with their
 *     cycles and event as CCT_PATHS_METERED frames (link protocol 8);
 *     the host keeps them in cct_path_counts.cycles and .event (schema
 *     12).  Truth: the model adds each path's deltas (bl-oracle.h note 6)
 *     under the context it counts the path in (FILE.cctpaths version 2),
 *     so `check --paths` compares each (context, path)'s metrics
 *     (context_path_metric_error) over the same windows as
 *     path_metric_error's, whose offsets it inherits.
 * 17. The activation's counters' base (util/instrument-count.c put_ctx_base,
 *     path-region.h note 13).  Note 12's count first loaded the current
 *     record (a leaf's leaf_rec), tested its flags and counted in it or
 *     context-free: about ten instructions and a taken branch a path more
 *     than --paths (branches, nearly no calls: 62.9 % against --paths'
 *     18.9 %).  Now a procedure's entry trampoline does that once per
 *     activation: the core state from sp (note 1: three instructions),
 *     cur (a leaf's leaf_rec, cleared there: a 0 reads the core itself as
 *     a record, whose flags, the high half of `procs`, are 0), the
 *     record's flags against the procedure's (note 3's ordinal test, with
 *     the leaf bit), and a cmoveq picks the record's counters (record +
 *     cct_record_size(nslots)) or the context-free ones (the path region
 *     + PATH_COUNTERS_OFFSET + the slot size x base): no branch.  That
 *     base then stands where --paths keeps its counters' address
 *     (path-region.h note 13), so a path's count is --paths' count, and
 *     --paths' loops in registers (its notes 9, 10) and frame mode (note
 *     11) apply.  Exact as note 12: the record current when a path ends
 *     is the one current at its procedure's entry, because every call
 *     under the activation pushes and pops `cur` (with the stack full it
 *     leaves it alone, note 5), a longjmp back into it restores the
 *     callee-saved registers it keeps the base in (a setjmp caller keeps
 *     P and Y there, path-region.h note 6), a tail call or millicode
 *     leaves `cur` the caller's (so context-free, at the entry as at the
 *     end), and a leaf's leaf_rec is written only by its own call (no
 *     call runs under a leaf).  A procedure with no entry code (every
 *     exit's number known: one path an activation) counts at its exit:
 *     in the record straight on, context-free out of line after the
 *     trampoline (one taken branch less).  The others count as note 12
 *     says: a memory-mode procedure whose frame cannot grow, and with
 *     --metrics all but kept leaves (path-region.h note 5, which keep the
 *     metered slots' base in Y likewise).  The loader sets each core's
 *     --both path region's magic (PATH_MAGIC32, or _METERED, of its
 *     address) before a --both image runs, as for --paths, so no
 *     trampoline stores it; the monitor sends a core's path region alone
 *     (no record) only when it counted something.  What each step took
 *     off, and the costs: README, bench_both.
 *
 * Invariants
 *  - sizes and offsets are the asserted ones; records are 8-byte aligned and
 *    lie in [region + CCT_RECORDS_OFFSET, region + alloc_end), alloc_end <=
 *    CCT_PER_CORE, or CCT_BOTH_PATHS_OFFSET with --both (note 11).
 *  - a record's `parent` and `next`/`children` point to records of the same
 *    core, created before it (parent) or after it (children).
 *  - records are laid out one after another in creation order, so the
 *    monitor walks them by size (cct_record_total(nslots, npaths)); `id` is the
 *    creation ordinal, the root has id 0 and the overflow record id 1.
 *  - --both: from a procedure's entry to its exit, its activation's
 *    counters' base (note 17) is its record's counters when `cur` (a
 *    leaf's leaf_rec) at the entry was a record of that procedure, else
 *    its context-free counters; `cur` at each of its paths' ends is that
 *    same record.
 */
#ifndef ALPHAPROF_CCT_REGION_H
#define ALPHAPROF_CCT_REGION_H

#include "linker/ram-map.h"

#define CCT_MAGIC               0x3154434346525041ULL   /* "APRFCCT1" */
#define CCT_MAGIC_BOTH          0x5054434346525041ULL   /* "APRFCCTP": --both's layout (note 11) */
#define CCT_BOTH_PATHS_OFFSET   0x20000                 /* the path region in a --both core region (note 11) */
#define CCT_BOTH_PATHS_SIZE     (CCT_PER_CORE - CCT_BOTH_PATHS_OFFSET)
#define CCT_BOTH_MAX_CTX_PATHS  256     /* a procedure with more paths counts them context-free only (note 12) */
#define CCT_BOTH_MAX_CTX_METERED 48     /* ... with --metrics (32-byte slots, note 16) */
#define CCT_VERSION             1
#define CCT_STACK_FRAMES        800
#define CCT_FRAME_SIZE          40
#define CCT_STACK_OFFSET        256
#define CCT_RECORDS_OFFSET      (CCT_STACK_OFFSET + CCT_STACK_FRAMES * CCT_FRAME_SIZE)
#define CCT_RECORD_HEADER       88
#define CCT_ROOT_ID             0
#define CCT_OVERFLOW_ID         1

/* struct cct_core offsets used by generated code. */
#define CCT_OFF_CUR             16
#define CCT_OFF_TOP             24
#define CCT_OFF_LEAF_REC        96
#define CCT_OFF_LEAF_CYCLES     104
#define CCT_OFF_LEAF_RETIRED    112
/* struct cct_record offsets used by generated code. */
#define CCT_REC_CALLEE          0
#define CCT_REC_SITE            8
#define CCT_REC_CALLS           40
#define CCT_REC_CYCLES          48
#define CCT_REC_RETIRED         56
#define CCT_REC_ACTIVE          64
#define CCT_REC_NSLOTS          68
#define CCT_REC_FLAGS           76
#define CCT_REC_NPATHS          80      /* --both: path counters after the slots (note 12) */
#define CCT_REC_LEAF            1       /* flags: the callee is a leaf (note 3a) */
#define CCT_REC_PROC_SHIFT      1       /* flags >> this: the callee's ordinal in the procedure
                                         * table + 1 (0: root, overflow), note 3 */
#define CCT_REC_SLOTS           CCT_RECORD_HEADER
/* struct cct_slot offsets (note 3). */
#define CCT_SLOT_SIZE           40
#define CCT_SLOT_REC            0
#define CCT_SLOT_CALLS          8
#define CCT_SLOT_CALLEE         16
#define CCT_SLOT_CYCLES         24      /* --metrics: a leaf's fast calls' metrics (note 3a) */
#define CCT_SLOT_RETIRED        32
/* struct cct_frame offsets. */
#define CCT_FR_PARENT           0
#define CCT_FR_CYCLES           8
#define CCT_FR_RETIRED          16
#define CCT_FR_SP               24

/* The instrumenter's procedure table, in the trampoline region: what the
 * slow path needs to name a callee and size its record, and whether the
 * image collects metrics (note 9). */
#define CCT_PROCS_MAGIC         0x53435250464f5250ULL   /* "PROFPRCS" */
#define CCT_METRICS             1       /* procs and core flags: inclusive metrics kept (note 9) */
#define CCT_BOTH                2       /* procs and core flags: path counters per record (notes 10-12) */
#define CCT_BOTH_METERED        4       /* ... with each path's cycles and event (note 16) */
#define CCT_PATH_METERED_SIZE   32      /* struct path_metered (path-region.h note 5) */
/* The segment ends with the site table, for the host only: count pairs
 * { trampoline's call PC, original call site } sorted by the first (two
 * or three per trampoline: its call with a frame, its leaf call when the
 * callee may be a leaf (note 3a), and its call without), then
 * the trailer { CCT_SITES_MAGIC, count }.  The model's oracle sees the
 * trampolines make the calls; `check --cct` maps them back with it.  With
 * metrics a trampoline may have a fourth call: a leaf's the slow path
 * found (note 3a), or, for a callee never active twice, the overflow
 * record's framed call that counts activity (note 4a). */
#define CCT_SITES_MAGIC         0x53455449534f5250ULL   /* "PROSITES" */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct cct_frame {
    uint64_t parent;            /* record current before the call */
    uint64_t cycles;            /* PMU cycles at the call */
    uint64_t retired;           /* PMU retired instructions at the call */
    uint64_t sp;                /* the caller's sp at the call (note 8) */
    uint64_t path;              /* reserved: the caller's path register (note 7) */
};

struct cct_record {
    uint64_t callee;            /* procedure entry; 0 for the root and overflow */
    uint64_t site;              /* call site PC in the caller; 0 for the root */
    uint64_t parent;            /* tree parent (address), 0 for the root */
    uint64_t next;              /* next tree child of the parent */
    uint64_t children;          /* first tree child */
    uint64_t calls;
    uint64_t cycles;            /* inclusive */
    uint64_t retired;           /* inclusive */
    uint32_t active;            /* activations under way (folded recursion) */
    uint32_t nslots;            /* call sites of the callee procedure */
    uint32_t id;                /* creation ordinal on this core */
    uint32_t flags;             /* the procedure table's: CCT_REC_LEAF (note 3a), ordinal (note 3) */
    uint32_t npaths;            /* --both: path counters after the slots (note 12), else 0; 8-byte words (note 16) */
    uint32_t spare;
    /* struct cct_slot slots[nslots]: child cache per call site (note 3) */
    /* uint64_t paths[npaths]: --both, counts per path in this context (note 12); with
     * --both --metrics struct path_metered paths[npaths / 4] (note 16) */
};

struct cct_slot {
    uint64_t rec;               /* the record last reached from this site, 0 none */
    uint64_t calls;             /* counts only (note 9): 2 x the calls counted here for `rec`, not yet
                                 * in its `calls`, + CCT_REC_LEAF when rec is a leaf (a jsr's test) */
    uint64_t callee;            /* rec's callee: a jsr's test */
    uint64_t cycles;            /* --metrics: inclusive cycles of the leaf calls counted here for `rec`,
                                 * not yet in its `cycles` (note 3a) */
    uint64_t retired;           /* ... and retired instructions */
};

struct cct_core {
    uint64_t magic;             /* CCT_MAGIC once initialised */
    uint32_t version;
    uint32_t core;
    uint64_t cur;               /* current record */
    uint64_t top;               /* next free shadow frame */
    uint64_t flags;             /* CCT_METRICS: records carry cycles and retired (note 9) */
    uint64_t skipped_calls;     /* calls made with a full shadow stack */
    uint64_t overflow_calls;    /* calls counted on the overflow record */
    uint64_t alloc;             /* next free byte for records */
    uint64_t nrecords;
    uint64_t procs;             /* the image's struct cct_procs */
    uint64_t root;
    uint64_t overflow;          /* the overflow record */
    uint64_t leaf_rec;          /* the record of the leaf call under way (note 3a) */
    uint64_t leaf_cycles;       /* PMU cycles at that call */
    uint64_t leaf_retired;      /* PMU retired instructions at that call */
    uint64_t reserved[17];      /* paths (note 7) */
};

struct cct_proc {
    uint64_t entry;             /* the procedure's address */
    uint64_t alt_entry;         /* entry + 8 when it starts with ldgp, else 0 */
    uint32_t nslots;            /* its instrumented call sites */
    uint32_t flags;             /* CCT_PROC_LEAF (note 3a) | (ordinal + 1) << CCT_REC_PROC_SHIFT */
    uint32_t npaths;            /* --both: its Ball-Larus paths counted per record (note 12), else 0 */
    uint32_t spare;
};

#define CCT_PROC_LEAF           CCT_REC_LEAF    /* copied into its records' flags */

struct cct_procs {
    uint64_t magic;             /* CCT_PROCS_MAGIC */
    uint64_t count;             /* sorted by entry */
    uint64_t flags;             /* CCT_METRICS (note 9), CCT_BOTH (note 12) */
    struct cct_proc proc[];
};

static inline uint64_t cct_record_size(uint32_t nslots)
{
    return CCT_RECORD_HEADER + CCT_SLOT_SIZE * (uint64_t)nslots;
}

/* A record's whole size, its path counters included (notes 12, 15). */
static inline uint64_t cct_record_total(uint32_t nslots, uint32_t npaths)
{
    return cct_record_size(nslots) + 8 * (uint64_t)npaths;
}

/* Moves what a slot counted for its record (note 9's calls, note 3a's
 * leaf metrics) into that record `t`, leaving the slot's leaf flag: the
 * runtime's lookup does it when a slot changes record, the monitor's
 * drain before it sends the tree. */
static inline void cct_slot_fold(struct cct_slot *sl, struct cct_record *t)
{
    t->calls += sl->calls >> 1;
    t->cycles += sl->cycles;
    t->retired += sl->retired;
    sl->calls &= CCT_REC_LEAF;
    sl->cycles = sl->retired = 0;
}

_Static_assert(sizeof(struct cct_frame) == CCT_FRAME_SIZE, "frame layout");
_Static_assert(__builtin_offsetof(struct cct_frame, sp) == CCT_FR_SP, "frame sp offset");
_Static_assert(sizeof(struct cct_record) == CCT_RECORD_HEADER, "record layout");
_Static_assert(sizeof(struct cct_core) <= CCT_STACK_OFFSET, "core state fits before the stack");
_Static_assert(__builtin_offsetof(struct cct_core, cur) == CCT_OFF_CUR, "cur offset");
_Static_assert(__builtin_offsetof(struct cct_core, top) == CCT_OFF_TOP, "top offset");
_Static_assert(__builtin_offsetof(struct cct_record, site) == CCT_REC_SITE, "site offset");
_Static_assert(__builtin_offsetof(struct cct_record, calls) == CCT_REC_CALLS, "calls offset");
_Static_assert(__builtin_offsetof(struct cct_record, cycles) == CCT_REC_CYCLES, "cycles offset");
_Static_assert(__builtin_offsetof(struct cct_record, retired) == CCT_REC_RETIRED, "retired offset");
_Static_assert(__builtin_offsetof(struct cct_record, active) == CCT_REC_ACTIVE, "active offset");
_Static_assert(__builtin_offsetof(struct cct_record, nslots) == CCT_REC_NSLOTS, "nslots offset");
_Static_assert(__builtin_offsetof(struct cct_record, flags) == CCT_REC_FLAGS, "flags offset");
_Static_assert(__builtin_offsetof(struct cct_core, leaf_rec) == CCT_OFF_LEAF_REC &&
               __builtin_offsetof(struct cct_core, leaf_cycles) == CCT_OFF_LEAF_CYCLES &&
               __builtin_offsetof(struct cct_core, leaf_retired) == CCT_OFF_LEAF_RETIRED, "leaf fields");
_Static_assert(sizeof(struct cct_proc) == 32, "procedure table entry layout");
_Static_assert(__builtin_offsetof(struct cct_record, npaths) == CCT_REC_NPATHS, "npaths offset");
_Static_assert(CCT_BOTH_PATHS_OFFSET % 0x10000 == 0 && CCT_BOTH_PATHS_OFFSET > CCT_RECORDS_OFFSET &&
               CCT_BOTH_PATHS_SIZE % 0x10000 == 0, "note 11: both parts one ldah apart");
_Static_assert(CCT_MAGIC_BOTH != CCT_MAGIC, "the layouts' magics differ");
_Static_assert(sizeof(struct cct_slot) == CCT_SLOT_SIZE && __builtin_offsetof(struct cct_slot, rec) == CCT_SLOT_REC &&
               __builtin_offsetof(struct cct_slot, calls) == CCT_SLOT_CALLS &&
               __builtin_offsetof(struct cct_slot, callee) == CCT_SLOT_CALLEE &&
               __builtin_offsetof(struct cct_slot, cycles) == CCT_SLOT_CYCLES &&
               __builtin_offsetof(struct cct_slot, retired) == CCT_SLOT_RETIRED, "slot layout");
_Static_assert(CCT_PER_CORE == PMU_WINDOW_PER_CORE, "one per-core offset reaches both (note 1)");
_Static_assert(CCT_RECORDS_OFFSET < 32768 && CCT_RECORDS_OFFSET < CCT_PER_CORE / 2,
               "the stack limit is one lda displacement; records have room");
_Static_assert(CCT_END <= USER_BASE, "below the user area");
#endif


#endif
