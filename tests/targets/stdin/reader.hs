-- Reads lines from its stdin, a prompt before each: as many as its argument
-- says (default 3), or up to the end of the file. For tests/test_stdin.py.
module Main (main) where

import System.Environment (getArgs)
import System.IO (hFlush, isEOF, stdout)

readLines :: Int -> Int -> IO Int
readLines wanted got
  | got >= wanted = pure got
  | otherwise = do
      putStr ("line " ++ show (got + 1) ++ "? ")
      hFlush stdout
      ended <- isEOF
      if ended
        then do
          putStrLn ("EOF after " ++ show got ++ " lines")
          pure got
        else do
          text <- getLine
          let now = got + 1 -- @got
          putStrLn ("read " ++ show now ++ ": " ++ text)
          readLines wanted now

main :: IO ()
main = do
  args <- getArgs
  let wanted = if null args then 3 else read (head args) -- @before
  got <- readLines wanted 0
  putStrLn ("done: " ++ show got ++ " lines") -- @done
