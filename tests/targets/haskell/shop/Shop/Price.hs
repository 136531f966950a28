module Shop.Price (withTax) where

withTax :: Double -> Double
withTax amount = amount * 1.2 -- @tax
