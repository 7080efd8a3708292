// Package server is a small HTTP-ish server exercising the definitions the extractor knows.
package server

import (
	"errors" // @ref import errors
	"fmt" // @ref import fmt
	"sync"
)

// MaxConns bounds the number of open connections.
const MaxConns = 128 // @def constant MaxConns

const (
	StateIdle    State = iota // @def constant StateIdle
	StateRunning              // @def constant StateRunning
	stateStopped              // @def constant stateStopped
)

var ErrClosed = errors.New("server closed") // @def variable ErrClosed

var _ Runner = (*Server)(nil)

var (
	defaultAddr = ":8080" // @def variable defaultAddr
	mu          sync.Mutex // @def variable mu
)

// State is the lifecycle state of a Server.
type State int // @def type State

// Handler answers one request.
type Handler func(req *Request) (*Response, error) // @def type Handler

// Alias is a type alias.
type Alias = Handler // @def type Alias

// Request is an incoming request.
type Request struct { // @def struct Request
	Path    string            // @def field Request.Path
	Headers map[string]string `json:"headers"` // @def field Request.Headers
	a, b    int               // @def field Request.a @def field Request.b
}

// Response is what a Handler returns.
type Response struct { // @def struct Response
	Status int // @def field Response.Status
	Body   []byte // @def field Response.Body
}

// Server serves requests.
type Server struct { // @def struct Server
	sync.Mutex // @def field Server.Mutex
	*Logger // @def field Server.Logger
	Base // @def field Server.Base
	addr     string // @def field Server.addr
	handlers map[string]Handler // @def field Server.handlers
	state    State // @def field Server.state
}

// Logger logs.
type Logger struct{} // @def struct Logger

// Base is embedded in Server.
type Base struct{} // @def struct Base

// Runner is something that runs.
type Runner interface { // @def interface Runner
	Run() error // @decl method Runner.Run
	Stop(force bool) // @decl method Runner.Stop
	fmt.Stringer
}

// Number is a type set constraint.
type Number interface { // @def interface Number
	~int | ~float64
}

// Stack is a generic stack.
type Stack[T any] struct { // @def struct Stack
	items []T // @def field Stack.items
}

type (
	ID   string // @def type ID
	Pair struct { // @def struct Pair
		Key, Value string // @def field Pair.Key @def field Pair.Value
	}
)

// New makes a Server listening on addr.
func New(addr string) *Server { // @def function New
	return &Server{addr: addr, handlers: map[string]Handler{}}
}

// Run starts serving.
func (s *Server) Run() error { // @def method Server.Run
	s.Lock() // @ref call Lock in Server.Run
	defer s.Unlock()
	if s.state == StateRunning {
		return errors.New("already running") // @ref call New in Server.Run
	}
	s.state = StateRunning
	return nil
}

// Stop stops the server.
func (s *Server) Stop(force bool) { // @def method Server.Stop
	s.state = stateStopped
}

// String describes the server.
func (s Server) String() string { // @def method Server.String
	return fmt.Sprintf("server %s", s.addr) // @ref call Sprintf in Server.String
}

// Push adds an item.
func (s *Stack[T]) Push(item T) { // @def method Stack.Push
	s.items = append(s.items, item) // @ref call append in Stack.Push
}

// Pop removes the top item.
func (st Stack[T]) Pop() (T, bool) { // @def method Stack.Pop
	var zero T
	if len(st.items) == 0 {
		return zero, false
	}
	return st.items[len(st.items)-1], true
}

// Sum adds numbers.
func Sum[N Number](values ...N) N { // @def function Sum
	var total N
	for _, v := range values {
		total += v
	}
	return total
}

func (State) Valid() bool { // @def method State.Valid
	return true
}

func main() { // @def function main
	const local = 3
	var counter int
	type point struct{ x, y int }
	handle := func() {}
	handle()
	_ = point{counter, local}
}
