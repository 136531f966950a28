import unittest

import calc


class CalcTest(unittest.TestCase):
    def test_divides(self):
        self.assertEqual(calc.divide(6, 3), 2)

    def test_divides_wrong(self):
        result = calc.divide(7, 2)
        self.assertEqual(result, 3)  # @assert-equal

    def test_parses(self):
        calc.parse("x")  # @call-parse

    def test_expects_errors(self):
        with self.assertRaises(ValueError):
            calc.parse("y")
        self.assertRaises(ZeroDivisionError, calc.divide, 1, 0)

    @unittest.expectedFailure
    def test_known_failure(self):
        self.assertEqual(1, 2)


if __name__ == "__main__":
    unittest.main()
