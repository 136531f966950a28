// A C++ audit: a struct passed by const reference, a vector by reference
// and a shared_ptr, for `dbg print` on the native backends.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct Account {
    std::string owner;
    int balance;
};

int audit(const Account &account, std::vector<int> &log, std::shared_ptr<Account> partner) {
    log.push_back(account.balance);
    return account.balance + partner->balance; // @audit
}

int main() {
    Account mine{"ada", 42};
    std::vector<int> audit_log{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
    auto partner = std::make_shared<Account>(Account{"bob", 7});
    std::printf("%d\n", audit(mine, audit_log, partner)); // @call
    return 0;
}
