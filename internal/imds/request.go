package imds

import (
	"encoding/json"
	"fmt"
	"time"
)

// Request records one exchange with the metadata service, for the bundle's
// record of how the collection went. It never holds a response body.
type Request struct {
	Method   string        `json:"method"`
	Path     string        `json:"path"`
	Status   int           `json:"status"` // 0 when no HTTP answer came
	Bytes    int           `json:"bytes"`
	Duration time.Duration `json:"-"` // written as duration_ms
	Error    string        `json:"error,omitempty"`
	// Err is the error behind Error, for errors.Is checks by the caller.
	Err error `json:"-"`
}

func (r *Request) fail(err error) {
	r.Err = err
	r.Error = err.Error()
}

// requestWire is the JSON shape of a Request.
type requestWire struct {
	Method     string  `json:"method"`
	Path       string  `json:"path"`
	Status     int     `json:"status"`
	Bytes      int     `json:"bytes"`
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

// MarshalJSON writes Duration as milliseconds with microsecond precision.
func (r Request) MarshalJSON() ([]byte, error) {
	return json.Marshal(requestWire{
		Method:     r.Method,
		Path:       r.Path,
		Status:     r.Status,
		Bytes:      r.Bytes,
		DurationMS: float64(r.Duration.Microseconds()) / 1000,
		Error:      r.Error,
	})
}

// UnmarshalJSON reads what MarshalJSON wrote. Err stays nil.
func (r *Request) UnmarshalJSON(data []byte) error {
	var w requestWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("imds request record: %w", err)
	}
	*r = Request{
		Method:   w.Method,
		Path:     w.Path,
		Status:   w.Status,
		Bytes:    w.Bytes,
		Duration: time.Duration(w.DurationMS * float64(time.Millisecond)),
		Error:    w.Error,
	}
	return nil
}
