"""The backend contract and the plugin host that finds, loads and picks backends."""
