int check(int total)
{
    int ok = total > 0;  // @late
    return ok;
}
