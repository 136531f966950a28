-- A program of two modules: Shop/Price.hs is found beside this file.
module Main (main) where

import Shop.Price (withTax)

main :: IO ()
main = do
  price <- pure (withTax 10) -- @call
  print price
