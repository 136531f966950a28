"""Holds the environment's secrets in locals, and prints one."""

import os

token = os.environ.get("GITHUB_TOKEN", "")
password = os.environ.get("DB_PASSWORD", "")
print("connecting with " + password)  # @use
