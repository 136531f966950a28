-- Reads its arguments and a line of stdin, then ends as they say
-- (tests/test_ghci.py): "fail" exits 3, "boom" dies of an uncaught error.
module Main (main) where

import System.Environment (getArgs)
import System.Exit (ExitCode (..), exitWith)
import System.IO (hPutStrLn, stderr)

tally :: [String] -> Int
tally args = length args * 10 -- @tally

main :: IO ()
main = do
  args <- getArgs -- @args
  line <- getLine
  putStrLn ("args: " ++ unwords args ++ "; read: " ++ line) -- @report
  hPutStrLn stderr ("tally " ++ show (tally args))
  case args of
    ("fail" : _) -> exitWith (ExitFailure 3)
    ("boom" : _) -> print (head (drop (length args) args)) -- @boom
    _ -> pure ()
