library geometry;

import 'dart:math' as math;  // @ref import dart:math

const double epsilon = 1e-9; // @def constant epsilon
final origin = Point(0, 0); // @def constant origin
var _instances = 0; // @def variable _instances
late final String label; // @def constant label

typedef Transform = Point Function(Point p); // @def type Transform
typedef bool Predicate(Point p); // @def type Predicate

/// Distance between two points.
double distance(Point a, Point b) { // @def function distance
  final dx = a.x - b.x;
  final dy = a.y - b.y;
  return math.sqrt(dx * dx + dy * dy);  // @ref call sqrt in distance
}

int get instanceCount => _instances; // @def function instanceCount

enum Quadrant { first, second, third, fourth } // @def enum Quadrant @def enum_member Quadrant.first @def enum_member Quadrant.second @def enum_member Quadrant.third @def enum_member Quadrant.fourth

enum Unit { // @def enum Unit
  meters(1.0), // @def enum_member Unit.meters
  feet(0.3048); // @def enum_member Unit.feet

  const Unit(this.factor); // @def constructor Unit.Unit

  final double factor; // @def field Unit.factor

  double toMeters(double value) => value * factor; // @def method Unit.toMeters
}

abstract interface class Shape { // @def class Shape
  double get area; // @decl method Shape.area

  String describe() => '$runtimeType with area $area'; // @def method Shape.describe
}

mixin Scalable { // @def trait Scalable
  double scale = 1.0; // @def field Scalable.scale

  void grow(double by) { // @def method Scalable.grow
    scale *= by;
  }
}

class Point { // @def class Point
  static const Point zero = Point(0, 0); // @def constant Point.zero

  final double x; // @def field Point.x
  final double y, z; // @def field Point.y @def field Point.z

  const Point(this.x, this.y, [this.z = 0]); // @def constructor Point.Point

  Point.origin() : this(0, 0); // @def constructor Point.origin

  factory Point.fromList(List<double> xs) { // @def constructor Point.fromList
    _instances++;
    return Point(xs[0], xs[1]);
  }

  Point operator +(Point other) => Point(x + other.x, y + other.y); // @def method Point.+

  @override
  String toString() => 'Point($x, $y)'; // @def method Point.toString
}

class Circle extends Shape with Scalable { // @def class Circle
  Circle(this.center, this.radius); // @def constructor Circle.Circle

  Point center; // @def field Circle.center
  double radius; // @def field Circle.radius

  @override
  double get area => math.pi * radius * radius * scale; // @def method Circle.area

  set diameter(double d) => radius = d / 2; // @def method Circle.diameter

  static Circle unit() => Circle(origin, 1); // @def method Circle.unit
}

extension PointMath on Point { // @def class PointMath
  Point scaled(double f) => Point(x * f, y * f); // @def method PointMath.scaled
}

extension type Meters(double value) { // @def class Meters
  Meters operator +(Meters other) => Meters(value + other.value); // @def method Meters.+
}

void main() { // @def function main
  print(distance(origin, Point.fromList([3, 4])));
}
