// A 10,000,000-element std::vector and a 100,000-element std::map: gdb lists a bounded number of a container's children (tests/faults/test_vast_arrays.py).
#include <cstdio>
#include <map>
#include <vector>
int main() {
    std::vector<int> v(10000000);
    for (int i = 0; i < 10000000; i++) v[i] = i;
    std::map<int, int> m;
    for (int i = 0; i < 100000; i++) m[i] = i;
    std::printf("%d %zu\n", v[9999999], m.size()); // @here
    std::printf("done\n"); // @after
    return 0;
}
