"""tests/test_debugpy_quiet.py: whether the program finds importlib.metadata
unloaded and imports the usual module, and platform.platform() not yet asked
(by debugpy's log) but answering."""
import platform
import sys

first = type(sys.modules.get("importlib.metadata")).__name__
import importlib.metadata  # noqa: E402 (after the look at sys.modules)

print("first", first)
print("now", type(importlib.metadata).__name__,
      importlib.metadata is sys.modules["importlib.metadata"])
print("found", any(d.metadata["Name"] for d in importlib.metadata.distributions()))
total = 0
for n in range(5):
    total += n  # @loop
print("total", total)
print("platform asked", bool(getattr(platform, "_platform_cache", None)))
print("platform", platform.platform().split("-")[0])
