// Smart pointers, a method's `this`, a watched local leaving its block,
// and a main with objects that have destructors: for dbg on gdb and lldb.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct Account {
    std::string owner;
    int balance;
};

struct Holder {
    std::unique_ptr<Account> account;
    std::shared_ptr<Account> spare;
};

struct Ledger {
    std::vector<int> audit_log;
    int record(int amount) {
        audit_log.push_back(amount);
        return (int)audit_log.size(); // @record
    }
};

int peek(const std::unique_ptr<Account> &account) {
    return account->balance; // @peek
}

int settle(int amount) {
    int fee = amount / 10; // @settle
    fee += 1;
    fee += 2;
    return fee;
}

int main() {
    std::vector<std::string> names{"ada", "bob"}; // @main-first
    auto owned = std::make_unique<Account>(Account{"ada", 42});
    auto shared = std::make_shared<Account>(Account{"bob", 7});
    std::weak_ptr<Account> weak = shared;
    std::unique_ptr<Account> empty;
    std::shared_ptr<Account> none;
    Holder holder{std::make_unique<Account>(Account{"cy", 3}), nullptr};
    std::vector<std::unique_ptr<Account>> pool;
    pool.push_back(std::make_unique<Account>(Account{"di", 4}));
    Ledger ledger{{3, 4}};
    int total = ledger.record(owned->balance); // @smart
    total += settle(total) + peek(owned);
    std::printf("%d %zu\n", total, names.size());
    return 0;
}
