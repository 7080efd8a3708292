// A small C++ file exercising the definitions the extractor knows.
#include <cmath> // @ref import cmath
#include <memory>
#include <string>
#include <vector>

#define SHAPES_VERSION 3 // @def macro SHAPES_VERSION
#define SQUARE(x) ((x) * (x)) // @def macro SQUARE

namespace geo { // @def module geo

constexpr double kPi = 3.14159; // @def constant geo::kPi
static int shape_count = 0; // @def variable geo::shape_count

using Scalar = double; // @def type geo::Scalar
typedef std::vector<Scalar> Scalars; // @def type geo::Scalars

enum class Color { Red, Green, Blue }; // @def enum geo::Color @def enum_member geo::Color::Red @def enum_member geo::Color::Green @def enum_member geo::Color::Blue

struct Point { // @def struct geo::Point
    Scalar x; // @def field geo::Point::x
    Scalar y = 0; // @def field geo::Point::y

    Point operator+(const Point &other) const { // @def method geo::Point::operator+
        return {x + other.x, y + other.y};
    }
};

union Value { // @def union geo::Value
    int i; // @def field geo::Value::i
    float f; // @def field geo::Value::f
};

/// The base of every shape.
class Shape { // @def class geo::Shape
public:
    Shape(); // @decl constructor geo::Shape::Shape
    explicit Shape(std::string name) : name_(std::move(name)) {} // @def constructor geo::Shape::Shape
    virtual ~Shape(); // @decl method geo::Shape::~Shape

    virtual double area() const = 0; // @decl method geo::Shape::area
    const std::string &name() const { return name_; } // @def method geo::Shape::name
    static int count(); // @decl method geo::Shape::count

    enum Kind { Round, Polygon }; // @def enum geo::Shape::Kind @def enum_member geo::Shape::Kind::Round @def enum_member geo::Shape::Kind::Polygon

protected:
    std::string name_; // @def field geo::Shape::name_
    static const int kMaxSides = 12; // @def field geo::Shape::kMaxSides
    Shape *parent_ = nullptr; // @def field geo::Shape::parent_
    int sides_[4]; // @def field geo::Shape::sides_
};

class Circle final : public Shape { // @def class geo::Circle
public:
    explicit Circle(double r) : Shape("circle"), radius_(r) {} // @def constructor geo::Circle::Circle
    double area() const override; // @decl method geo::Circle::area
    bool operator==(const Circle &other) const; // @decl method geo::Circle::operator==

    struct Style { // @def struct geo::Circle::Style
        Color color; // @def field geo::Circle::Style::color
    };

private:
    double radius_; // @def field geo::Circle::radius_
};

Shape::Shape() : name_("shape") {} // @def constructor geo::Shape::Shape
Shape::~Shape() {} // @def method geo::Shape::~Shape

int Shape::count() { // @def method geo::Shape::count
    return shape_count;
}

double Circle::area() const { // @def method geo::Circle::area
    return kPi * SQUARE(radius_);
}

bool Circle::operator==(const Circle &other) const { // @def method geo::Circle::operator==
    return radius_ == other.radius_;
}

template <typename T>
class Stack { // @def class geo::Stack
public:
    void push(T value); // @decl method geo::Stack::push
    T pop() { // @def method geo::Stack::pop
        T top = items_.back();
        items_.pop_back();
        return top;
    }

private:
    std::vector<T> items_; // @def field geo::Stack::items_
};

template <typename T>
void Stack<T>::push(T value) { // @def method geo::Stack::push
    items_.push_back(value);
}

template <typename T>
T max_of(T a, T b) { // @def function geo::max_of
    return a > b ? a : b;
}

template <typename T>
concept Numeric = std::is_arithmetic_v<T>; // @def type geo::Numeric

template <typename T>
using Ptr = std::unique_ptr<T>; // @def type geo::Ptr

namespace detail { // @def module geo::detail
double distance(const Point &a, const Point &b); // @decl function geo::detail::distance
} // namespace detail

} // namespace geo

namespace geo::detail { // @def module geo::detail
double distance(const Point &a, const Point &b) { // @def function geo::detail::distance
    return std::sqrt(SQUARE(a.x - b.x) + SQUARE(a.y - b.y));
}
} // namespace geo::detail

namespace util::strings { // @def module util::strings
std::string trim(const std::string &s); // @decl function util::strings::trim
}

static void log_area(const geo::Shape &shape) { // @def function log_area
    const int local = 1;
    auto print = [&]() { return shape.area() * local; };
    print();
}

int main() { // @def function main
    geo::Circle c(2.0);
    log_area(c);
    return 0;
}
