//! A small Rust module exercising the definitions the extractor knows.

use std::fmt; // @ref import std::fmt
mod util; // @def module util @ref import util in util

/// The largest side any shape may have.
pub const MAX_SIDE: f64 = 1.0e6; // @def constant MAX_SIDE
static mut COUNTER: u32 = 0; // @def variable COUNTER

/// A point in the plane.
#[derive(Debug, Clone, Copy)]
pub struct Point { // @def struct Point
    pub x: f64, // @def field Point::x
    pub y: f64, // @def field Point::y
}

pub enum Shape { // @def enum Shape
    Circle { center: Point, radius: f64 }, // @def enum_member Shape::Circle @def field Shape::Circle::center @def field Shape::Circle::radius
    Square(Point, f64), // @def enum_member Shape::Square
}

pub union Bits { // @def union Bits
    i: u32, // @def field Bits::i
    f: f32, // @def field Bits::f
}

pub type Pair = (Point, Point); // @def type Pair

/// Anything with an area.
pub trait Area { // @def trait Area
    fn area(&self) -> f64; // @decl method Area::area
    fn describe(&self) -> String { // @def method Area::describe
        format!("{}", self.area()) // @ref call format in Area::describe @ref call area in Area::describe
    }
}

impl Area for Shape {
    fn area(&self) -> f64 { // @def method Shape::area
        match self {
            Shape::Circle { radius, .. } => 3.14 * radius * radius,
            Shape::Square(_, side) => side * side,
        }
    }
}

impl<T> fmt::Display for Wrapper<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { // @def method Wrapper::fmt
        write!(f, "wrapper") // @ref call write in Wrapper::fmt
    }
}

pub struct Wrapper<T>(T); // @def struct Wrapper

pub mod geometry { // @def module geometry
    pub fn distance(a: super::Point, b: super::Point) -> f64 { // @def function geometry::distance
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }
}

macro_rules! square { // @def macro square
    ($x:expr) => {
        $x * $x
    };
}

fn main() { // @def function main
    let _ = square!(2.0); // @ref call square in main
}
