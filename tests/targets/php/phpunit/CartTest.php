<?php
// PHPUnit tests of cart.php: one passes, one fails (for `dbg start` on phpunit).

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../cart.php';

final class CartTest extends TestCase
{
    public function testFee(): void
    {
        $this->assertSame(102.0, fee(100.0)); // @passes
    }

    public function testDiscount(): void
    {
        $total = 19.25;
        $final = apply_discount($total, 10);
        $this->assertSame(17.0, $final, 'ten percent off'); // @fails
    }
}
