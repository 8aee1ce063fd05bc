package result

import (
	"fmt"

	"github.com/go-json-experiment/json"
)

// judged are the options of the decoding of a message sightline judges for
// another program that carries it out (an agent's request the editor
// performs, an agent's tool call a hook is asked about). Member names match
// exactly, as JavaScript's JSON.parse, serde and the agents' schemas match
// them; a member named twice, invalid UTF-8 or anything after the value is
// an error, because the receiver would read one copy of the message and
// sightline another. Members the target does not name are ignored, as the
// receivers ignore them.
var judged = json.JoinOptions(
	json.MatchCaseInsensitiveNames(false),
	json.RejectUnknownMembers(false),
)

// DecodeJudged decodes a message sightline judges for its receiver (see
// judged). Its error says what made the message ambiguous; the door refuses
// such a message, never passes it on unjudged.
func DecodeJudged(b []byte, v any) error {
	if err := json.Unmarshal(b, v, judged); err != nil {
		return fmt.Errorf("the message cannot be read exactly as its receiver reads it: %w", err)
	}
	return nil
}
