"""The daemon: the socket server, the session it holds, dispatch of ops."""
