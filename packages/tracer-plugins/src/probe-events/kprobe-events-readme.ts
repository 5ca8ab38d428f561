/**
 * The `kprobe_events` part of tracefs `README`, for the features this tracer implements. It omits the
 * BTF argument line (`<argname>`) and `%pd/%pD`: selftests grep for those to decide what to test.
 *
 * @see kernel/trace/trace.c readme_msg
 */
export const KPROBE_EVENTS_README = `  kprobe_events\t\t- Create/append/remove/show the kernel dynamic events
\t\t\t  Write into this file to define/undefine new trace events.
\t  accepts: event-definitions (one definition per line)
\t   Format: p[:[<group>/][<event>]] <place> [<args>]
\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]
\t           -:[<group>/][<event>]
\t    place: [<module>:]<symbol>[+<offset>]|<memaddr>
place (kretprobe): [<module>:]<symbol>[+<offset>]%return|<memaddr>
\t     args: <name>=fetcharg[:type]
\t fetcharg: (%<register>|$<efield>), @<address>, @<symbol>[+|-<offset>],
\t           $stack<index>, $stack, $retval, $comm, $arg<N>,
\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\"imm-string"
\t     kernel return probes support: $retval, $arg<N>, $comm
\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, char, string, symbol,
\t           b<bit-width>@<bit-offset>/<container-size>, ustring,
\t           symstr, <type>\\[<array-size>\\]
`;
