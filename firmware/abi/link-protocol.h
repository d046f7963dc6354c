/*
 * The alphaprof serial link protocol: the one definition of every byte that
 * travels between the firmware profiler and the host tools.  The encoder and
 * decoder for it are firmware/abi/link-codec.c (built into both sides).
 *
 * Plain constants only; C (firmware and host) includes it.
 *
 * ---------------------------------------------------------------------------
 * 1. Framing (self-synchronising)
 *
 *   raw frame:  type u8 | version u8 | seq u16 | len u16 | payload[len] | crc u32
 *               (fixed-width fields little-endian; crc = CRC-32/IEEE, the
 *                zlib crc32(), over type..payload)
 *   on the wire: 0x00 | COBS(raw frame) | 0x00
 *
 *   COBS (consistent overhead byte stuffing) removes every zero byte from the
 *   raw frame, so a 0x00 on the wire always is a frame boundary: a receiver
 *   that joins mid-stream, or loses or corrupts bytes, is back in step at the
 *   next 0x00 and loses at most the frame it was in.  Each frame starts with
 *   a delimiter too, so a sender that restarts mid-frame (or text printed on
 *   the same UART) spoils nothing but itself.  Empty chunks (0x00 0x00) are
 *   idle and ignored.  Overhead: 2 delimiters + 1 byte per 254 + 10 bytes of
 *   header and CRC.
 *
 *   seq counts the frames one side sends (wrapping at 2^16; each direction
 *   has its own).  Target -> host, seq is the link session's frame number
 *   (section 5): the host delivers frames in seq order only, holding the
 *   few that come early, and asks for the missing ones again.  Host -> target, seq names a control frame, so that a
 *   retried one is recognised (section 4).
 *
 * 2. Payload encoding
 *
 *   u      unsigned LEB128 varint (7 bits a byte, low first, <= 10 bytes)
 *   s      signed varint: zigzag then u (0,-1,1,-2.. -> 0,1,2,3..)
 *   n16    u16 little-endian (entry counts, so a sender can fill them in last)
 *   str    u length, then that many bytes (no terminator, <= LK_MAX_NAME)
 *   pcd    a PC as a delta from the previous PC of the same list (the first
 *          from 0): d = pc - prev (mod 2^64); q = d >> 2 (arithmetic);
 *          u (zigzag(q) << 1 | (d & 3 != 0)), then if that flag is set one
 *          byte d & 3.  Alpha PCs are 4-byte aligned, so sorted PCs cost one
 *          or two bytes each.
 *
 *   A decoder ignores bytes after the fields it knows: newer senders may
 *   append fields at the end of any payload.
 *
 * 3. Target -> host frames
 *
 *   HELLO     u proto (LK_PROTO_VERSION), u ncores, u caps (LK_CAP_*),
 *             u timebase_hz (units of every `time` field), str board,
 *             str firmware (build description), u baud (the link's pacing in
             baud, 8N1; 0 unpaced; absent from older senders),
 *             u nonce (the link session's nonce, section 5),
 *             u prev_nonce, u prev_pos (5.5: the session this one takes
 *             over, 0 if none, and the position there of the first frame
 *             sent again after the context),
 *             u period_min, u period_max (the timer period range
 *             configured, ns), u timer_min, u timer_max (the range the
 *             timer samples at: the configured one raised to the shortest
 *             period the board can keep; all four 0 when the timer does not
 *             sample; absent from older senders)
 *   NAMES     u kind (LK_NAMES_*), u first index, n16 count, str[count]:
 *             human names of event numbers, ProfileMe event bits and
 *             latency fields, so the host needs no copy of the hw-model's
 *             tables (hw-model/pmu-window.h is their definition)
 *   LOADMAP   n16 count, count x { u action (LK_LOADMAP_*), u address,
 *             u size, u idlen (<= LK_BUILD_ID_SIZE), build_id[idlen],
 *             str name }  (the image header's name and GNU build-id)
 *   SAMPLES   DCPI hash-table entries of one (core, event):
 *             u core, u event (hw-model event number, or LK_EVENT_TIMER),
 *             u period (mean sampling period in events, 0 if unknown),
 *             n16 count, count x { pcd, u samples }
 *   PME_AGG   ProfileMe aggregates per PC of one core:
 *             u core, u nbits (event-bit counters per entry, <= LK_MAX_BITS),
 *             u nlat (latency sums per entry, <= LK_MAX_LAT), n16 count,
 *             count x { pcd, u samples, u retired, u aborted,
 *                       u mask (bit i set: counter i is non-zero),
 *                       u bits[popcount(mask)] (ascending i),
 *                       u latsum[nlat] }
 *             nbits and nlat describe the record format: the hw-model's
 *             record may grow without a protocol change.
 *   PAIRS     whole paired samples of one core:
 *             u core, u nlat, u offered, u kept (the pairs the board
 *             took into the bank these come from, and how many of them it
 *             kept: a full bank keeps a uniform random subset of its
 *             pairs, so each pair of the frame stands for offered / kept
 *             of them; kept <= offered, kept > 0 when count > 0),
 *             n16 count, count x {
 *               u distance (cycles between the two fetches),
 *               u gap (instructions fetched between them, the minor interval),
 *               2 x { pcd (from the previous record's PC), u events (event
 *                     bit-field), u addr (effective address, 0 if none),
 *                     u history (global branch history), u lat[nlat] } }
 *   FLUSH     ends every flush of a core:
 *             u core, u flush_no, u time, u nstats, nstats x { u id
 *             (LK_STAT_*), u value }, u ndrops, ndrops x { u reason
 *             (LK_DROP_*), u count }.
 *             u base (1: a base FLUSH, section 5: values an earlier host
 *             already stored; the host takes them as its zero point).
 *             Both lists are cumulative since sampling first started on
 *             the board (never going back), so the host takes differences.
 *   EPOCH     u epoch, u time: the answer to NEW_EPOCH epoch, sent once
 *             the target has flushed everything collected before it; data
 *             in later frames belongs to the new epoch.  The target never
 *             starts an epoch by itself.
 *   VALUES    value hotlists of one core (value sampling: Gibbons-Matias
 *             concise samples per PC and value kind):
 *             u core, n16 count, count x { pcd, u kind (firmware/profiler/
 *             value-hotlist.h VALUE_*), u tau (each point of these values
 *             is held with probability 1/tau; a hotlist whose pairs
 *             have different taus goes as one entry per tau), u offered
 *             (values offered to this hotlist since the last VALUES of
 *             it, exactly), u nvalues
 *             (<= LK_MAX_HOT_VALUES), nvalues x { u value, u count } }.
 *             count * tau estimates a value's frequency without bias, so
 *             the host adds count * tau (and offered) over frames.
 *   VALUE_STATS  the value sampler's cumulative counters of one core:
 *             u core, u runs (interpreter runs), u insns (instructions
 *             interpreted), u cycles (spent in the interpreter), u offered
 *             (values offered to hotlists), u sent (offered values of the
 *             hotlists in VALUES frames sent), u no_slot (values whose
 *             (PC, kind) found no hotlist: dropped), u link_full (offered
 *             values of hotlists the link had no room for: dropped),
 *             u not_user (interrupts of kernel code: not interpreted),
 *             u nstops, nstops x { u reason (value-interp.h VI_STOP_*),
 *             u count }.  offered = sent + no_slot + link_full + what the
 *             board still holds.
 *   CCT       calling context tree records of one core (an image
 *             instrumented with `alphaprof instrument --cct`,
 *             firmware/abi/cct-region.h), sent once after the image exited:
 *             u core, u total (records the core made, ids 0..total-1),
 *             u skipped_calls (calls made with the shadow stack full: not
 *             in any record), u overflow_calls (calls counted on the
 *             overflow record, id 1, for lack of record space),
 *             u first (id of this frame's first record), u metrics (1: an
 *             image instrumented --cct --metrics, cct-region.h note 9;
 *             else 0: call counts only), n16 count,
 *             count x { u parent (id; the root, id 0, is its own parent),
 *             u callee (procedure entry, 0 for root and overflow), u site
 *             (call site PC), u calls, and when metrics u cycles,
 *             u retired (inclusive) } (records of a frame have
 *             consecutive ids).  A record no
 *             frame carried (the link had no room) is missing on the host:
 *             it counts total minus the records it got.
 *   PATHS     Ball-Larus path counters of one core (an image instrumented
 *             with `alphaprof instrument --paths`, firmware/abi/
 *             path-region.h), sent once after the image exited: u core,
 *             u lost_paths (paths of activations deeper than the register
 *             stack: not counted), u unmatched_exits, u bad_paths,
 *             u first (the first counter index this frame looked at),
 *             u metered (1: an image instrumented --paths --metrics,
 *             path-region.h note 5; else 0), u unmetered (paths counted
 *             without metrics: activations past the register stack),
 *             n16 count, count x { u index (counter, >= first, increasing),
 *             u count (nonzero), and when metered u cycles, u event (the
 *             path's summed modelled cycles and chosen event, start to
 *             end; the image's path table names the event) }.  The host
 *             names an index with the image's path table; a frame the
 *             link had no room for is counted by the monitor's console
 *             line, not the host.
 *   CCT_PATHS Ball-Larus path counts per calling context of one core (an
 *             image instrumented with `alphaprof instrument --both`,
 *             firmware/abi/cct-region.h notes 10-14), sent after the
 *             core's CCT frames: u core, n16 count, count x { u record
 *             (the id of a record the CCT frames carry), u path (its
 *             procedure's Ball-Larus number), u count (nonzero) }, by
 *             record then path.  Paths counted in no context come as
 *             PATHS frames (the core's path region, whose counters are
 *             then the context-free ones).  A procedure counted in the
 *             --both path region's hash table (path-region.h note 15)
 *             comes the same way after the core's PATH_HASH frames, in
 *             table order: its record, its Ball-Larus number (up to 44
 *             bits) and count; its context-free counts come as PATH_HASH
 *             entries (the layout unchanged, version 9).  A frame the
 *             link had no room for is counted by the monitor's console
 *             line.
 *   CCT_PATHS_METERED  the same with each path's metrics (an image
 *             instrumented with `alphaprof instrument --both --metrics`,
 *             cct-region.h note 16), sent instead of CCT_PATHS: u core,
 *             n16 count, count x { u record, u path, u count (nonzero),
 *             u cycles, u event (the path's summed modelled cycles and
 *             chosen event in that context, start to end as PATHS'
 *             metered ones; the image's path table names the event) }, by
 *             record then path.  A (record, path) comes in one frame,
 *             once per session: the host keeps it keyed by (session,
 *             core, record, path), so a frame taken twice (sent again,
 *             or a takeover's replay) stores each entry once.  The
 *             context-free counters come as metered PATHS frames.
 *   PATH_HASH Ball-Larus path counts of one core's hash table (procedures
 *             with too many paths for an array, path-region.h note 14),
 *             sent after the core's PATHS frames: u core, n16 count,
 *             count x { u proc (the procedure's hashed ordinal: the image's
 *             path table entry with PATH_HASHED and that base), u path (its
 *             Ball-Larus number, up to 64 bits), u count (nonzero) }, in
 *             table order.  A PATHS index cannot carry them (a counter
 *             index names one slot of an array; these are a procedure and
 *             a 64-bit number).  Each (proc, path) comes once per session;
 *             the host keeps it keyed by (session, core, proc, path), so a
 *             frame taken twice stores each entry once.  The core's loss
 *             counts (a full bucket counts in lost_paths) are in its PATHS
 *             frames' head.
 *   END       s status (the workload's exit status), u how (LK_END_*), u time
 *   CONSOLE   u stream (1 stdout, 2 stderr), u core, bytes (rest of payload):
 *             console text, when the console shares the link's UART
 *   ACK       u seq (of the control frame), u type (of it), u status
 *             (0 done, else LK_ACK_*), str message
 *   PART      u total, u offset, bytes (rest of the payload): a piece of
 *             the raw frame (header and payload, no CRC, its seq field 0)
 *             whose seq this PART carries; total is its length (section
 *             5.7)
 *
 * 4. Host -> target control frames (over UART receive)
 *
 *   START     u nonce (the host's random nonce for the link session it
 *             starts; a START without payload: the target picks one)
 *   STOP, FLUSH_NOW  no payload
 *   LINK_ACK  u nonce, u stored, u expected, u flags (LK_LACK_*),
 *             u sack (bit i set: the host holds frame expected + 1 + i,
 *             i < LK_SACK_BITS; absent from older senders: none held):
 *             section 5; not answered, not "one at a time"
 *   CONFIG    u mode (LK_MODE_*), u flush_ms (periodic flush interval),
 *             u pme_min, u pme_max (ProfileMe fetch-counter interval range),
 *             u pair_window (W: paired minor interval is uniform 1..W),
 *             u nevents, nevents x { u event, u period_min, u period_max }
 *   NEW_EPOCH u epoch (the host's number for it: the database's epoch id)
 *   The target answers every control frame with an ACK once it is done:
 *   START     starts a link session (section 5): HELLO (seq 0), NAMES,
 *             LOADMAP, base FLUSH frames, then what the last host did not
 *             acknowledge, then the ACK; sampling on;
 *   STOP      stops sampling, flushes everything (FLUSH frames), then ACKs;
 *   FLUSH_NOW sends everything collected so far, FLUSH frames, then ACK;
 *   NEW_EPOCH as FLUSH_NOW, then EPOCH, then ACK;
 *   CONFIG    while stopped (else LK_ACK_BUSY); takes effect at START.
 *   A frame that arrives intact but cannot be parsed (or is no control
 *   frame) gets LK_ACK_BAD_FRAME; a damaged chunk is only counted
 *   (LK_STAT_CTRL_BAD).  One control frame at a time: another one while
 *   the target is still busy with the last gets LK_ACK_BUSY.  The host
 *   sends a control frame again (same seq) when no ACK came within its
 *   retry time; the target does the last frame's work only once: the same
 *   seq and type again is answered with the same ACK (or, while still in
 *   progress, ignored).  A host starts its control seq at a random value,
 *   so a new host's frames are not taken for a killed one's.
 *
 * 5. Reliability: link sessions, acknowledgement, retransmission
 *
 *   5.1 A link session is named by a 64-bit nonce (the host's, from START
 *       or from the boot line's nonce=HEX, which `alphaprof record` gives:
 *       that host acknowledges from the first frame; or the target's own
 *       when it samples from boot without one).  Its frames are
 *       numbered 0, 1, 2 ... (seq, mod 2^16): first the context (HELLO,
 *       NAMES, LOADMAP, one base FLUSH per core that has one), then data.
 *   5.2 The target keeps every frame it sent in a retransmit window in
 *       fixed RAM until the host acknowledges it.  The host sends LINK_ACK
 *       with `stored` = the seq before which every frame is committed to
 *       its database (the target frees them), `expected` = the next seq
 *       it will take, and `sack`, the frames after `expected` it holds
 *       already (5.3).  It acknowledges only when one of them moved (or
 *       to ask again, 5.3): after a commit, as soon as `expected` moved
 *       LK_ACK_FRAMES frames, else LK_ACK_EVERY_MS after the last
 *       LINK_ACK, and (at most every LK_NAK_MS) when a duplicate comes;
 *       all within the byte budget of 5.8.  The target sends at most
 *       LK_IN_FLIGHT_FRAMES frames beyond the host's last `expected`: on
 *       a fast link the frames after a gap queue in buffers on the way,
 *       and a retry would wait behind all of them; and so the host never
 *       needs to hold more than LK_SACK_BITS frames ahead.
 *   5.3 Selective repeat.  The host delivers frames to its database in
 *       seq order only (the context ahead of the data, every FLUSH behind
 *       the samples it counts), but it does not throw away what comes
 *       early: a frame behind `expected`, or one it holds already, is a
 *       duplicate or a replay (discarded, counted link_dup_frames); a
 *       frame 1..LK_SACK_BITS ahead of `expected` is held in a reorder
 *       buffer of that many frames (one beyond it is discarded), and the
 *       held frames go to the database the moment the gap before them
 *       fills.  A frame ahead means one before it was damaged or lost, so
 *       the host sends LINK_ACK with LK_LACK_RESEND and the bitmap: at
 *       once when the frame shows a hole the last RESEND did not, else at
 *       most once per LK_NAK_MS for the same `expected`.  Every LINK_ACK
 *       carries the bitmap of the moment.
 *       The target resends only what the host lacks: frame `expected`
 *       and every frame between it and the highest frame the host holds
 *       that the bitmap leaves clear, and of those only the ones whose
 *       last copy must have been lost: the link delivers in order, so a
 *       hole whose last copy went out before some frame the host holds
 *       went out first is lost, and one sent again after it may still be
 *       on its way (so a LINK_ACK delayed or repeated asks for nothing
 *       twice).  A RESEND whose bitmap is empty (the frame ahead was not
 *       held) asks for `expected` alone.  The resent frames go first,
 *       lowest first; then the target carries on with new frames where it
 *       was.  Without any progress of `expected` for its retransmit time
 *       (a lost last frame, a lost LINK_ACK) the target resends by itself
 *       frame `expected` and every frame after it that the last bitmap
 *       did not show held; that time doubles while nothing gets
 *       through, up to LK_RTO_MAX_MS, and is back at its least after a
 *       LINK_ACK that shows a gap (held frames or RESEND).
 *   5.4 HELLO of another nonce than the host's own START is not its
 *       session: skipped.  A HELLO of a nonce seen before is a replay.
 *       LINK_ACK of another nonce than the target's session is ignored.
 *   5.5 Takeover: START while a session lives (a killed host's successor)
 *       starts a new session whose context is new (base FLUSH frames carry
 *       the cumulative values of the last FLUSH the old host acknowledged)
 *       and whose data is everything the old host did not acknowledge,
 *       renumbered.  So a board holds on to its data until some host has
 *       stored it, whoever that is.  A host acknowledges only what it has
 *       committed, and commits with it how far it got in each session (by
 *       nonce); its LINK_ACK may still be lost with the host.  So HELLO
 *       names the session taken over (prev_nonce) and the old position of
 *       the first frame sent again (prev_pos): a successor on the same
 *       database skips what is there already (counting the samples as
 *       arrived and taking FLUSH values as its base).
 *   5.6 Window full: frames the window has no room for are not sent; the
 *       profiler counts their samples (LK_DROP_LINK_FULL) and never waits.
 *       A target that has not yet heard a LINK_ACK of its session frees
 *       frames as they are sent (a one-way link).
 *   5.7 Parts: a frame built before the link turned bad may be too long
 *       to get through whole (at byte error rate e a frame of n bytes
 *       arrives with (1-e)^n: 12 % for 1 KiB at 2e-3).  When the frame at
 *       the host's `expected` was lost twice (5.3: the host's bitmap or the
 *       target's retransmit time said so), the target sends it as PART frames
 *       of at most LK_PART_BYTES (halved on each further loss, down to
 *       a sixteenth of that), all with the frame's seq.  The host keeps the
 *       pieces of its `expected` frame across retries (a seq names one
 *       frame within a session, so pieces of two tries fit together) and
 *       takes the frame once every byte is in.  So a frame at the gap gets
 *       through at any damage rate where LK_PART_BYTES/16 bytes do.
 *   5.8 Pacing towards the board: the host's clock is not the board's.
 *       Under -icount a board may run its virtual time ten times slower
 *       than the host's clock, and its receiver reads no faster than the
 *       baud rate in virtual time: LINK_ACKs timed by the host's clock
 *       (every 100 ms, once a second when idle) outran a 9600-baud line,
 *       queued in the socket, and a FLUSH_NOW behind them waited for the
 *       end of the run.  So the host sends LINK_ACK bytes in proportion to
 *       the bytes it receives: at most 1/LK_ACK_BYTES_SHARE of them (plus
 *       a LINK_ACK to start with, at most LK_ACK_CREDIT_MAX saved up), and
 *       never when neither `stored` nor `expected` moved.  Both directions
 *       run at one baud rate, so LINK_ACKs take at most that share of the
 *       line to the board whatever the two clocks do, and the rest is the
 *       control frames'.  Liveness: a session that sends little still
 *       gets its LINK_ACKs from the credit saved up, and with something
 *       unacknowledged and no LINK_ACK for LK_ACK_IDLE_MS of host time one
 *       goes regardless; a target that hears nothing resends by itself
 *       (5.3), which brings bytes, hence credit.  With nothing moved the
 *       host still sends one every LK_ACK_IDLE_MS within the budget, so a
 *       target settling after END under heavy damage hears it is there.
 *   5.9 Go-back-N, for comparison only (tests/bench/bench_link.py runs it
 *       beside selective repeat; ALPHAPROF_LINK_GO_BACK_N=1 in the host's
 *       environment): the host holds nothing ahead (a frame ahead is
 *       discarded, its sack always 0) and sets LK_LACK_GO_BACK in every
 *       LINK_ACK; a target that sees it sends, on a RESEND or its
 *       retransmit time, frame `expected` and every frame after it sent
 *       so far again, as protocol 2 did.
 *
 * 6. Control latency (issue 12, measured by the board in virtual time,
 *    the monitor's "control latency" lines; firmware/profiler/control.c)
 *
 *   6.1 Arrival: a control frame is decoded at a poll of the receiver
 *       (every millisecond of virtual time while the link is busy, every
 *       10 ms while it is idle); it arrived after
 *       the poll before, so every latency counts from that poll.
 *   6.2 Cut: the flush a frame asks for has begun (what it covers is
 *       decided: the tables and buffers of that moment).
 *   6.3 Answer on the wire ("answered"): the last byte of the frame's ACK
 *       has left the UART.  The ACK follows, in order, the data the flush
 *       covers and every core's FLUSH frame, so at that moment the host
 *       has the whole flush; the host stores it as soon as it reads it
 *       (the daemon commits at the last core's FLUSH).
 *   6.4 Line time: of the answer's latency, the time the line was busy
 *       with bytes sent between the cut and the ACK's last byte (that
 *       flush's data, FLUSH frames and ACK, and anything sent again).  A
 *       flush's own frames are link-bound: four cores' FLUSH frames and
 *       an ACK are about 250 bytes, 260 ms at 9600 baud.  The rest,
 *       answer minus line time, is what the board made the answer wait
 *       (its own scheduling, a host that held it, 5.2); the goal is that
 *       this wait is at most 50 ms of virtual time at any period and baud.
 * ---------------------------------------------------------------------------
 */
#ifndef ALPHAPROF_LINK_PROTOCOL_H
#define ALPHAPROF_LINK_PROTOCOL_H

#define LK_PROTO_VERSION    9       /* 9: PATH_HASH (hashed path counts, path-region.h note 14);
                                       8: CCT_PATHS_METERED (paths per context with metrics, --both
                                       --metrics); 7: CCT_PATHS (paths per context, --both); 6: CCT's metrics flag
                                       (counts-only trees); 5: PAIRS' offered and
                                       kept; 4: PATHS' metered and per-path metrics; 3: LINK_ACK's sack */

/* Frame geometry. */
#define LK_HDR_SIZE         6       /* type, version, seq, len */
#define LK_CRC_SIZE         4
#define LK_MAX_PAYLOAD      1024
#define LK_MAX_RAW          (LK_HDR_SIZE + LK_MAX_PAYLOAD + LK_CRC_SIZE)
/* COBS adds one byte per 254 plus one; two delimiters. */
#define LK_COBS_MAX(n)      ((n) + (n) / 254 + 1)
#define LK_MAX_WIRE         (LK_COBS_MAX(LK_MAX_RAW) + 2)
#define LK_DELIM            0x00

/* Limits of the self-described parts. */
#define LK_BUILD_ID_SIZE    20      /* longest GNU build-id (SHA-1) */
#define LK_MAX_NAME         128     /* image, board, event names */
#define LK_MAX_BITS         32      /* ProfileMe event-bit counters per PC */
#define LK_MAX_LAT          16      /* ProfileMe latency fields */
#define LK_MAX_COUNTERS     16      /* stats or drop reasons in one FLUSH */
#define LK_MAX_EVENTS       8       /* events in one CONFIG */
#define LK_VARINT_MAX       10
#define LK_MAX_HOT_VALUES   16      /* values in one VALUES hotlist */
#define LK_MAX_VALUE_STOPS  32      /* interpreter stop reasons in one VALUE_STATS */

/* Frame types: target -> host. */
#define LK_T_HELLO          0x01
#define LK_T_NAMES          0x02
#define LK_T_LOADMAP        0x03
#define LK_T_SAMPLES        0x04
#define LK_T_PME_AGG        0x05
#define LK_T_PAIRS          0x06
#define LK_T_FLUSH          0x07
#define LK_T_EPOCH          0x08
#define LK_T_END            0x09
#define LK_T_CONSOLE        0x0a
#define LK_T_ACK            0x0b
#define LK_T_VALUES         0x0c
#define LK_T_VALUE_STATS    0x0d
#define LK_T_PART           0x0e
#define LK_T_CCT            0x0f
#define LK_T_PATHS          0x10
#define LK_T_CCT_PATHS      0x11
#define LK_T_CCT_PATHS_METERED 0x12
#define LK_T_PATH_HASH      0x13
/* Frame types: host -> target. */
#define LK_T_START          0x40
#define LK_T_STOP           0x41
#define LK_T_CONFIG         0x42
#define LK_T_NEW_EPOCH      0x43
#define LK_T_FLUSH_NOW      0x44
#define LK_T_LINK_ACK       0x45

/* LINK_ACK flags and the host's timing (section 5). */
#define LK_LACK_RESEND      0x01    /* a gap: resend what the host lacks (5.3) */
#define LK_LACK_GO_BACK     0x02    /* (a measurement's baseline) go-back-N instead (5.9) */
#define LK_SACK_BITS        32      /* LINK_ACK sack: frames after `expected` it covers (5.3) */
#define LK_ACK_EVERY_MS     100     /* host: a LINK_ACK at least this often while frames come */
#define LK_NAK_MS           50      /* host: one RESEND per `expected` per this time */
#define LK_ACK_FRAMES       8       /* host: a LINK_ACK once `expected` moved this many */
#define LK_ACK_BYTES_SHARE  4       /* host: LINK_ACK bytes <= 1/this of the bytes received (5.8) */
#define LK_ACK_CREDIT_MAX   256     /* host: LINK_ACK bytes saved up, at most */
#define LK_ACK_IDLE_MS      1000    /* host: something unacknowledged this long: a LINK_ACK regardless */
#define LK_IN_FLIGHT_FRAMES 32      /* target: frames sent beyond the host's `expected`, at most */
#define LK_PART_BYTES       256     /* target: the gap frame lost twice goes in pieces of this */
#define LK_RTO_MIN_MS       250     /* target: retransmit time, at least (virtual time) */
#define LK_RTO_MAX_MS       4000    /* ... doubling up to this while nothing gets through */

/* HELLO caps bits. */
#define LK_CAP_COUNTERS     0x01    /* hw-model event counters */
#define LK_CAP_PROFILEME    0x02
#define LK_CAP_PAIRED       0x04
#define LK_CAP_TIMER        0x08    /* alarm-timer PC sampling (plain board) */

/* NAMES kinds. */
#define LK_NAMES_EVENT      0       /* SAMPLES event numbers */
#define LK_NAMES_PME_BIT    1       /* ProfileMe event bits (PME_AGG, PAIRS) */
#define LK_NAMES_PME_LAT    2       /* ProfileMe latency fields */

/* SAMPLES event for alarm-timer PC samples (not a hw-model counter). */
#define LK_EVENT_TIMER      255

/* LOADMAP actions. */
#define LK_LOADMAP_UNLOAD   0
#define LK_LOADMAP_LOAD     1

/* FLUSH stats (cumulative per core since HELLO) and drop reasons: numbers
 * and names in firmware/abi/counter-names.def.  The achieved sampling
 * period of a core's timer samples (issue 12) travels as two stats,
 * LK_STAT_TIMER_NS / LK_STAT_TIMER_TIMED (mean virtual ns between a sample
 * and the tick before it), with LK_STAT_MISSED_TICKS (deadlines the board
 * gave up, too far behind, re-armed from the time it noticed). */
enum lk_stat_id {
#define LK_STAT(id, number, name) LK_STAT_##id = number,
#include "firmware/abi/counter-names.def"
};
enum lk_drop_reason {
#define LK_DROP(id, number, name, what) LK_DROP_##id = number,
#include "firmware/abi/counter-names.def"
};

/* END how. */
#define LK_END_EXIT         0       /* the workload exited */
#define LK_END_FATAL        1       /* the monitor hit a fatal trap */
#define LK_END_STOPPED      2       /* stopped by the host */

/* CONFIG modes. */
#define LK_MODE_OFF         0
#define LK_MODE_COUNTERS    1       /* event-counter sampling (DCPI) */
#define LK_MODE_PROFILEME   2
#define LK_MODE_PAIRED      3       /* ProfileMe with paired sampling */
#define LK_MODE_TIMER       4       /* alarm-timer PC sampling */

/* ACK status. */
#define LK_ACK_OK           0
#define LK_ACK_BAD_FRAME    1       /* malformed control payload */
#define LK_ACK_UNSUPPORTED  2       /* mode or event this board lacks */
#define LK_ACK_BUSY         3

/* Stat and drop numbers index per-id tables of 32 (control-machine.h,
 * ingest): counter-names.def, invariant 1. */
#define LK_STAT(id, number, name) _Static_assert(number > 0 && number < 32, "stat " name " below 32");
#define LK_DROP(id, number, name, what) _Static_assert(number > 0 && number < 32, "drop " name " below 32");
#include "firmware/abi/counter-names.def"
/* The achieved period's stats fit a FLUSH beside the table's, the boot
 * core's link stats and a source's own (control.c). */
_Static_assert(LK_STAT_TIMER_NS > 0 && LK_STAT_TIMER_TIMED > 0 && LK_STAT_MISSED_TICKS > 0 && 5 + 3 + 3 + 3 <= LK_MAX_COUNTERS,
               "a FLUSH has room for the achieved period");

/* seq arithmetic is mod 2^16; a window never holds half of that space. */
_Static_assert(LK_MAX_RAW < 65536, "raw frame length fits the u16 length field");
_Static_assert(LK_T_LINK_ACK > LK_T_FLUSH_NOW && LK_T_LINK_ACK < 0x80, "host frames are 0x40..0x7f");
_Static_assert(LK_T_PART < LK_T_START && LK_T_CCT < LK_T_START && LK_T_PATHS < LK_T_START &&
               LK_T_CCT_PATHS < LK_T_START && LK_T_CCT_PATHS_METERED < LK_T_START && LK_T_PATH_HASH < LK_T_START,
               "target frames are below 0x40");
/* A PATH_HASH entry is three varints, a 64-bit path number ten bytes at
 * most: with the head (the core, the n16 count) a frame holds many. */
_Static_assert(LK_VARINT_MAX + 2 + 3 * LK_VARINT_MAX < LK_MAX_PAYLOAD / 16, "a PATH_HASH frame holds many entries");
/* A CCT_PATHS_METERED entry is five varints: with the frame's head (the
 * core, the n16 count) it fits a frame many times over. */
_Static_assert(LK_VARINT_MAX + 2 + 5 * LK_VARINT_MAX < LK_MAX_PAYLOAD / 8,
               "a CCT_PATHS_METERED frame holds several entries");
_Static_assert(LK_MAX_HOT_VALUES * 2 * LK_VARINT_MAX + 5 * LK_VARINT_MAX < LK_MAX_PAYLOAD,
               "a full hotlist fits one VALUES frame");
_Static_assert(LK_NAK_MS < LK_RTO_MIN_MS, "the host asks again before the target times out");
_Static_assert(LK_ACK_FRAMES < LK_IN_FLIGHT_FRAMES, "the host acknowledges before the target must wait");
_Static_assert(LK_SACK_BITS <= 32, "a sack bitmap is a u32");
_Static_assert(LK_IN_FLIGHT_FRAMES <= LK_SACK_BITS + 1,
               "the bitmap covers every frame the target may have out beyond `expected` (5.2)");
_Static_assert((LK_IN_FLIGHT_FRAMES & (LK_IN_FLIGHT_FRAMES - 1)) == 0,
               "the target indexes its in-flight frames by seq mod LK_IN_FLIGHT_FRAMES");
_Static_assert(LK_PART_BYTES / 16 > 0 && LK_PART_BYTES + 16 <= LK_MAX_PAYLOAD, "a PART holds a piece");

#endif
