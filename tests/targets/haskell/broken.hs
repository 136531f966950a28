-- Does not compile: ghci's error is the start's answer (tests/test_ghci.py).
main :: IO ()
main = putStrLn (1 + "one")
