class Renderer:
    def __init__(self):
        self.templates = {}

    def _load_templates(self):
        self.templates["a"] = "A"  # @load
        return self.templates
