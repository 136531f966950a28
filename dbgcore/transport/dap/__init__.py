"""A Debug Adapter Protocol client: framing, transports, channel, session.

Layers, bottom up: :mod:`framing` (bytes <-> messages), :mod:`adapter`
(the adapter process; a child's stdio or a TCP socket), :mod:`channel`
(sequence numbers, matching responses, dispatching events and reverse
requests), :mod:`adaptersession` (the handshake, capabilities, stop
tracking, program output). Nothing here names a particular adapter; adapter
quirks live in plugins.
"""
