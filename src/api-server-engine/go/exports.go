//go:build wasip1

package main

import "unsafe"

// The engine is a WASI reactor (go build -buildmode=c-shared): the host calls _initialize once, then these. Every
// buffer crossing the boundary is owned by Go and kept reachable in `held` until the host frees it:
//
//	p = alloc(n)                    the host writes n bytes of JSON at p
//	r = load(p, n)                  a CRD in; r packs the answer's address and length: address<<32 | length
//	r = judge(handle, p, n)         a judgeRequest in, a judgeAnswer out
//	forget(handle)                  drops a loaded CRD
//	r = evaluate(p, n)              an evaluateRequest in (one CEL expression), an evaluateAnswer out
//	r = match(p, n)                 a matchRequest in (a webhook's matchConditions), a matchAnswer out
//	free(p)                         for every alloc'd buffer and every answer, once read
var held = map[uintptr][]byte{}

//go:wasmexport alloc
func alloc(n uint32) uint32 {
	buffer := make([]byte, n+1) // never empty, so that it has an address
	address := uintptr(unsafe.Pointer(&buffer[0]))
	held[address] = buffer
	return uint32(address)
}

//go:wasmexport free
func free(address uint32) {
	delete(held, uintptr(address))
}

func received(address, n uint32) []byte {
	buffer := held[uintptr(address)]
	if uint32(len(buffer)) < n {
		return nil // not a buffer of alloc's: the answer will say the input is not JSON
	}
	return buffer[:n]
}

func send(answer []byte) uint64 {
	address := uintptr(unsafe.Pointer(&answer[0]))
	held[address] = answer
	return uint64(address)<<32 | uint64(len(answer))
}

//go:wasmexport load
func load(address, n uint32) uint64 {
	return send(answerLoad(received(address, n)))
}

//go:wasmexport judge
func judge(handle int32, address, n uint32) uint64 {
	return send(answerJudge(handle, received(address, n)))
}

//go:wasmexport evaluate
func evaluate(address, n uint32) uint64 {
	return send(answerEvaluate(received(address, n)))
}

//go:wasmexport match
func match(address, n uint32) uint64 {
	return send(answerMatch(received(address, n)))
}

//go:wasmexport forget
func forget(handle int32) {
	answerForget(handle)
}

func main() {}
