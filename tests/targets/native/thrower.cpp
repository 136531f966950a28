// dbg trace's C++ target: a traced function left by an exception that is
// caught where the try block's next call would have gone on.
#include <cstdio>
#include <stdexcept>

int check(int value)
{
    if (value < 0) {
        throw std::runtime_error("bad entry");  // @throw
    }
    return value;
}

int main()
{
    try {
        check(1);
        check(-2);
    } catch (const std::exception &e) {
        std::printf("caught %s\n", e.what());
    }
    check(3);  // @after-catch
    return 0;
}
