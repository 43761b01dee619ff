package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-go/mnemo/internal/pgstore"
)

// TestConnectionLost: connection failures are told from answers the
// server gave and from the caller's own deadline.
func TestConnectionLost(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("engine: read thread t1: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("x: %w", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}), true},
		{fmt.Errorf("x: %w", net.ErrClosed), true},
		{fmt.Errorf("x: %w", &pgconn.PgError{Code: "23505"}), false},
		{fmt.Errorf("x: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01"}), true}, // terminating connection due to administrator command
		{fmt.Errorf("x: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P02"}), true},
		{fmt.Errorf("x: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P03"}), true}, // the database system is starting up
		{fmt.Errorf("x: %w", &pgconn.PgError{Code: "08006"}), true},
		{fmt.Errorf("x: %w", &pgconn.PgError{Code: "57014"}), false}, // a statement cancelled
		{fmt.Errorf("x: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P04"}), false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{context.Canceled, false},
		{errors.New("engine: not found"), false},
	} {
		if got := pgstore.ConnectionLost(c.err); got != c.want {
			t.Errorf("ConnectionLost(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
