/* Built as a shared library that dlhost.c loads with dlopen. */
int plugin_square(int x)
{
    int result = x * x;  // @square
    return result;
}
