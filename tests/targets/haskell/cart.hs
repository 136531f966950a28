{-# LANGUAGE BangPatterns #-}
-- A shopping cart, cart.py's Haskell twin for the conformance suite.
module Main (main) where

import Control.Exception (evaluate)
import System.Exit (exitWith, ExitCode (..))
import System.IO (hPutStrLn, stderr)
import Text.Printf (printf)

data Item = Item { itemName :: String, itemPrice :: Double, itemQuantity :: Int }

cartTotal :: [Item] -> Double
cartTotal items = sum costs -- @total-first
  where costs = [itemPrice item * fromIntegral (itemQuantity item) | item <- items] -- @loop

applyDiscount :: Double -> Double -> Double
applyDiscount total percent =
  let !discount = total * percent / 100 -- @discount
  in total - discount -- @discount-return

main :: IO ()
main = do
  let cart = [Item "apple" 0.5 6, Item "bread" 2.25 1, Item "coffee" 7.0 2] -- @main-first
  total <- evaluate (cartTotal cart) -- @call-total
  printf "subtotal: %.2f\n" total
  final <- evaluate (applyDiscount total 10) -- @call-discount
  printf "total after discount: %.2f\n" final -- @after-discount
  hPutStrLn stderr "done"
  if final > 0 then exitWith ExitSuccess else exitWith (ExitFailure 1)
