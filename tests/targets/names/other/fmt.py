class Fmt:
    def normalize(self, s):
        return s.upper()  # @fmt
