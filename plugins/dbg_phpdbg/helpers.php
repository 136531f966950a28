function __dbg_phpdbg_repr($v, int $depth = 0): string {
    if (is_string($v)) return '"' . addcslashes($v, "\0..\37\"\\\177") . '"';
    if ($v === null) return 'null';
    if (is_bool($v)) return $v ? 'true' : 'false';
    if (is_int($v) || is_float($v)) return var_export($v, true);
    if (is_array($v)) {
        if ($depth > 3) return '[...]';
        $parts = []; $n = 0; $list = array_is_list($v);
        foreach ($v as $k => $item) {
            if (++$n > 100) { $parts[] = '...'; break; }
            $parts[] = ($list ? '' : __dbg_phpdbg_repr($k) . ' => ') . __dbg_phpdbg_repr($item, $depth + 1);
        }
        return '[' . implode(', ', $parts) . ']';
    }
    if (is_object($v)) {
        $class = get_class($v);
        if ($v instanceof \Closure || $depth > 3) return $class . ' {...}';
        $parts = [];
        foreach ((array)$v as $k => $item) {
            $k = (string)$k; $cut = strrpos($k, "\0");
            $parts[] = ($cut === false ? $k : substr($k, $cut + 1)) . ': ' . __dbg_phpdbg_repr($item, $depth + 1);
        }
        return $class . ' {' . implode(', ', $parts) . '}';
    }
    return get_debug_type($v);
}
function __dbg_phpdbg_vars(array $vars, $self = null): string {
    $skip = ['GLOBALS', '_GET', '_POST', '_COOKIE', '_FILES', '_SERVER', '_ENV', '_REQUEST', '_SESSION', '__dbg_e'];
    $out = [];
    if ($self !== null) $out[] = "\$this\x1f" . get_debug_type($self) . "\x1f" . __dbg_phpdbg_repr($self);
    foreach ($vars as $k => $v) {
        if (in_array($k, $skip, true)) continue;
        $out[] = '$' . $k . "\x1f" . get_debug_type($v) . "\x1f" . __dbg_phpdbg_repr($v);
    }
    return "\x1d" . implode("\x1e", $out) . "\x1d";
}
function __dbg_phpdbg_result(array $r): string {
    if ($r[0]) return "\x1dok\x1f" . get_debug_type($r[1]) . "\x1f" . __dbg_phpdbg_repr($r[1]) . "\x1d";
    return "\x1derr\x1f" . get_class($r[1]) . "\x1f" . str_replace("\n", ' ', $r[1]->getMessage()) . "\x1d";
}
function __dbg_phpdbg_lines(string $file): string {
    $all = phpdbg_get_executable(['files' => [$file]]);
    return "\x1d" . implode(',', array_keys($all[$file] ?? [])) . "\x1d";
}
function __dbg_phpdbg_wrap(string $code): string {
    return 'set_error_handler(function ($n, $s) { throw new \ErrorException($s); }); '
        . "try { return [true, eval(base64_decode('" . base64_encode($code) . "'))]; } "
        . 'catch (\Throwable $__dbg_e) { return [false, $__dbg_e]; } '
        . 'finally { restore_error_handler(); unset($__dbg_e); }';
}
function __dbg_phpdbg_preload(): string {
    // phpdbg looks up each catch's class as an exception passes, autoloading
    // it then, which fails while the exception is pending: load them first.
    $loaded = 0;
    $files = array_unique(array_filter(array_column(debug_backtrace(), 'file'), 'is_file'));
    foreach ($files as $file) {
        $tokens = token_get_all((string)file_get_contents($file));
        $ns = ''; $uses = []; $count = count($tokens);
        for ($i = 0; $i < $count; $i++) {
            $kind = is_array($tokens[$i]) ? $tokens[$i][0] : $tokens[$i];
            if ($kind !== T_NAMESPACE && $kind !== T_USE && $kind !== T_CATCH) continue;
            if ($kind === T_CATCH) { while ($i < $count && $tokens[$i] !== '(') $i++; }
            $names = []; $name = '';
            for ($i++; $i < $count && !in_array($tokens[$i], [';', '{', ')', '('], true); $i++) {
                $t = $tokens[$i];
                if (is_array($t) && in_array($t[0], [T_STRING, T_NAME_QUALIFIED, T_NAME_FULLY_QUALIFIED], true)) $name .= $t[1];
                elseif ($t === '|' || $t === ',' || (is_array($t) && $t[0] === T_AS)) { $names[] = $name; $name = ''; }
            }
            $names[] = $name;
            if ($kind === T_NAMESPACE) { $ns = $names[0]; }
            elseif ($kind === T_USE && $tokens[$i] === ';' && $names[0] !== '') {
                $uses[strtolower($names[1] ?? substr(strrchr('\\' . $names[0], '\\'), 1))] = $names[0];
            } elseif ($kind === T_CATCH) {
                foreach ($names as $class) {
                    if ($class === '') continue;
                    $head = strtolower(explode('\\', $class)[0]);
                    $full = $class[0] === '\\' ? substr($class, 1) : (isset($uses[$head]) ? $uses[$head] . substr($class, strlen($head)) : ($ns !== '' ? $ns . '\\' : '') . $class);
                    $loaded += (int)(class_exists($full) || interface_exists($full));
                }
            }
        }
    }
    return "\x1d" . $loaded . "\x1d";
}
