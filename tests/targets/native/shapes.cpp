// A class and a std::vector, for the C++ side of the native backends.
#include <cstdio>
#include <string>
#include <vector>

class Shape {
public:
    Shape(std::string name, double width, double height)
        : name_(std::move(name)), width_(width), height_(height) {}

    double area() const {
        double result = width_ * height_;  // @area
        return result;
    }

    const std::string &name() const { return name_; }

private:
    std::string name_;
    double width_;
    double height_;
};

int main() {
    std::vector<Shape> shapes;  // @main-first
    shapes.emplace_back("square", 2.0, 2.0);
    shapes.emplace_back("wide", 5.0, 1.5);
    double total = 0;
    for (const Shape &shape : shapes) {
        total += shape.area();  // @sum
    }
    std::printf("shapes: %zu, total area: %.2f\n", shapes.size(), total);  // @print
    return 0;
}
