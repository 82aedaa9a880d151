//go:build !wasip1

package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
)

// The engine as a native process: crdgate starts one per process and speaks to it over its standard input and
// output in frames, as esbuild's service protocol does. Many requests can be in flight: those queued behind another
// are answered in goroutines of their own, and the answers go out as they are ready, tagged with their request's id. Payloads are the same
// JSON documents the WebAssembly build (exports.go) takes and gives through its memory, passed as they are.
//
//	request:  u32 length | u32 id | u8 operation | i32 handle | payload
//	answer:   u32 length | u32 id | payload
//
// Little-endian; a length counts the bytes after it. The process ends when its standard input does (its host is
// gone), or on a frame it cannot read, which it names on standard error: a broken stream cannot be resynchronized.
const (
	operationLoad     = 1
	operationJudge    = 2
	operationForget   = 3
	operationEvaluate = 4
	operationMatch    = 5
	requestHeader     = 4 + 1 + 4
	// The host refuses an input past 3 MiB of JSON (kube-apiserver's request limit); a judge request carries the
	// object and its old object, with room to spare.
	maxRequestLength = 64 << 20
)

func main() {
	// Only frames go to standard output: a library that printed there would break the stream, so it prints to
	// standard error, which the host logs.
	frames := os.Stdout
	os.Stdout = os.Stderr
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := &answerWriter{w: bufio.NewWriterSize(frames, 1<<16)}
	var inFlight sync.WaitGroup
	for {
		id, operation, handle, payload, err := readRequest(in)
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "crdgate api-server engine: %v; stopping\n", err)
			inFlight.Wait()
			os.Exit(2)
		}
		// A request with none behind it is answered here: a goroutine of its own would cost more than the answer
		// (waking another thread for it, then this one again, tripled the engine's CPU per small object). Requests
		// already queued behind it are answered at once, each in a goroutine.
		if in.Buffered() == 0 {
			out.write(id, answerOperation(operation, handle, payload))
			continue
		}
		inFlight.Add(1)
		go func() {
			defer inFlight.Done()
			out.write(id, answerOperation(operation, handle, payload))
		}()
	}
	inFlight.Wait()
}

func readRequest(in *bufio.Reader) (id uint32, operation byte, handle int32, payload []byte, err error) {
	var length [4]byte
	if _, err = io.ReadFull(in, length[:]); err != nil {
		return // io.EOF between frames: the host closed the stream
	}
	n := binary.LittleEndian.Uint32(length[:])
	if n < requestHeader || n > maxRequestLength {
		return 0, 0, 0, nil, fmt.Errorf("a request frame of %d bytes (from %d to %d are read)", n, requestHeader, maxRequestLength)
	}
	frame := make([]byte, n)
	if _, err = io.ReadFull(in, frame); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("the request stream ended inside a frame: %w", err)
	}
	id = binary.LittleEndian.Uint32(frame[0:4])
	operation = frame[4]
	handle = int32(binary.LittleEndian.Uint32(frame[5:9]))
	return id, operation, handle, frame[requestHeader:], nil
}

func answerOperation(operation byte, handle int32, payload []byte) []byte {
	switch operation {
	case operationLoad:
		return answerLoad(payload)
	case operationJudge:
		return answerJudge(handle, payload)
	case operationForget:
		answerForget(handle)
		return []byte("{}")
	case operationEvaluate:
		return answerEvaluate(payload)
	case operationMatch:
		return answerMatch(payload)
	}
	return mustJSON(judgeAnswer{Error: fmt.Sprintf("unknown operation %d", operation)})
}

type answerWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (a *answerWriter) write(id uint32, payload []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var header [8]byte
	binary.LittleEndian.PutUint32(header[0:4], uint32(4+len(payload)))
	binary.LittleEndian.PutUint32(header[4:8], id)
	a.w.Write(header[:])
	a.w.Write(payload)
	if err := a.w.Flush(); err != nil {
		// The host is gone: nothing is left to answer.
		os.Exit(0)
	}
}
