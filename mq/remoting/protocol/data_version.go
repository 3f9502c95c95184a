package protocol

import (
	"encoding/json"
	"fmt"
)

// Encode returns the DataVersion JSON {"counter":N,"timestamp":MS}: the body of a
// QUERY_DATA_VERSION (322) request and of its response. Java: DataVersion#encode.
func (v DataVersion) Encode() []byte {
	b, _ := json.Marshal(v) // two int64 fields always marshal
	return b
}

// DecodeDataVersion parses a DataVersion body. Unknown fields (a 5.x broker's stateVersion) are
// ignored; an empty body is an error, as Java's DataVersion.decode(null) fails.
// Errors wrap ErrBadBody.
func DecodeDataVersion(body []byte) (DataVersion, error) {
	var v DataVersion
	if len(body) == 0 {
		return v, fmt.Errorf("%w: data version: empty body", ErrBadBody)
	}
	if err := unmarshalBody(body, "data version", &v); err != nil {
		return DataVersion{}, err
	}
	return v, nil
}
