// An exception no handler catches: std::map::at on a key the map does not
// hold throws std::out_of_range, std::terminate aborts the program.
#include <iostream>
#include <map>
#include <string>

int price(const std::map<std::string, int> &table, const std::string &key)
{
    return table.at(key);  // @throws
}

int main()
{
    std::map<std::string, int> table{{"apple", 3}, {"pear", 5}};
    std::cout << price(table, "apple") << std::endl;
    std::cout << price(table, "plum") << std::endl;  // @call
    return 0;
}
