//go:build cgo && libjpeg

package derive

/*
#cgo LDFLAGS: -ljpeg
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

// folio_maxScans bounds the scans of a progressive JPEG: each scan makes
// the decoder walk every coefficient again, so thousands of tiny scans
// burn the CPU (djpeg's -maxscans guards against the same).
#define folio_maxScans 1000

typedef struct {
	struct jpeg_error_mgr pub;
	jmp_buf jmp;
	char msg[JMSG_LENGTH_MAX];
} folio_jpeg_err;

// An error never reaches libjpeg's default error_exit, which calls exit():
// it jumps back to folio_jpeg_decode, which destroys the decompressor.
static void folio_jpeg_error_exit(j_common_ptr cinfo) {
	folio_jpeg_err *e = (folio_jpeg_err *)cinfo->err;
	(*cinfo->err->format_message)(cinfo, e->msg);
	longjmp(e->jmp, 1);
}

// A warning is corrupt data that libjpeg would paper over (a truncated
// file comes out grey at the bottom): it fails the decode instead, as
// djpeg -strict does, and the caller falls back to Go's decoder.
static void folio_jpeg_emit_message(j_common_ptr cinfo, int level) {
	if (level < 0) {
		folio_jpeg_error_exit(cinfo);
	}
}

static void folio_jpeg_output_message(j_common_ptr cinfo) {}

static void folio_jpeg_progress(j_common_ptr cinfo) {
	if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > folio_maxScans) {
		folio_jpeg_err *e = (folio_jpeg_err *)cinfo->err;
		snprintf(e->msg, sizeof e->msg, "more than %d scans", folio_maxScans);
		longjmp(e->jmp, 1);
	}
}

// folio_jpeg_decode decodes the JPEG in data[0:size], which must be w×h,
// scaled by 1/denom in the DCT, as RGBA into out (out_w×out_h×4 bytes).
// 0 is success, 1 an error (msg says which), 2 a colour space this does
// not decode (CMYK, YCCK: the caller uses Go's decoder).
static int folio_jpeg_decode(const unsigned char *data, unsigned long size, int w, int h, int denom,
		unsigned char *out, int out_w, int out_h, long max_mem, char *msg, int msg_len) {
	struct jpeg_decompress_struct cinfo;
	folio_jpeg_err err;
	struct jpeg_progress_mgr progress;
	JSAMPROW row;

	memset(&cinfo, 0, sizeof cinfo);
	memset(&progress, 0, sizeof progress);
	cinfo.err = jpeg_std_error(&err.pub);
	err.pub.error_exit = folio_jpeg_error_exit;
	err.pub.emit_message = folio_jpeg_emit_message;
	err.pub.output_message = folio_jpeg_output_message;
	err.msg[0] = 0;
	if (setjmp(err.jmp)) {
		jpeg_destroy_decompress(&cinfo);
		snprintf(msg, msg_len, "%s", err.msg);
		return 1;
	}
	jpeg_create_decompress(&cinfo);
	cinfo.mem->max_memory_to_use = max_mem;
	progress.progress_monitor = folio_jpeg_progress;
	cinfo.progress = &progress;
	jpeg_mem_src(&cinfo, data, size);
	jpeg_read_header(&cinfo, TRUE);
	if ((int)cinfo.image_width != w || (int)cinfo.image_height != h) {
		snprintf(msg, msg_len, "header is %ux%u, expected %dx%d", cinfo.image_width, cinfo.image_height, w, h);
		jpeg_destroy_decompress(&cinfo);
		return 1;
	}
	switch (cinfo.jpeg_color_space) {
	case JCS_GRAYSCALE:
	case JCS_YCbCr:
	case JCS_RGB:
		break;
	default:
		jpeg_destroy_decompress(&cinfo);
		return 2;
	}
	cinfo.out_color_space = JCS_EXT_RGBA;
	cinfo.scale_num = 1;
	cinfo.scale_denom = denom;
	jpeg_calc_output_dimensions(&cinfo);
	if ((int)cinfo.output_width != out_w || (int)cinfo.output_height != out_h || cinfo.output_components != 4) {
		snprintf(msg, msg_len, "output is %ux%u×%d, expected %dx%d×4", cinfo.output_width, cinfo.output_height,
			cinfo.output_components, out_w, out_h);
		jpeg_destroy_decompress(&cinfo);
		return 1;
	}
	jpeg_start_decompress(&cinfo);
	while (cinfo.output_scanline < cinfo.output_height) {
		row = out + (size_t)cinfo.output_scanline * (size_t)out_w * 4;
		if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) {
			snprintf(msg, msg_len, "no scanline %u", cinfo.output_scanline);
			jpeg_destroy_decompress(&cinfo);
			return 1;
		}
	}
	jpeg_finish_decompress(&cinfo);
	jpeg_destroy_decompress(&cinfo);
	return 0;
}
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"io"
	"unsafe"

	"github.com/folio-cms/folio/media/probe"
)

// JPEGDecoder names the JPEG decoder this build uses.
const JPEGDecoder = "libjpeg-turbo"

// errTurboUnsupported is a JPEG libjpeg could read but this wrapper does
// not decode (CMYK, YCCK): Go's decoder takes it.
var errTurboUnsupported = errors.New("derive: colour space left to Go's decoder")

// maxTurboBytes bounds the file decodeJPEG reads into memory for
// libjpeg: a photo is a few bytes per pixel at most, so only a file
// padded with other data goes past it, and Go's decoder streams that one.
const maxTurboBytes = 64 << 20

// decodeJPEG decodes the JPEG read from r (size bytes, its header said
// w×h) with libjpeg-turbo, shrunk by 1/denom (1, 2, 4 or 8) in the DCT as
// it decodes (libvips' shrink-on-load), into an NRGBA image of
// scaledSize(w, h, denom); it returns the denominator used. The file is
// read into memory first (at most maxTurboBytes). Anything libjpeg
// refuses or warns about (a truncated or corrupt file, a CMYK one) is
// decoded by Go's decoder instead, at full size: its verdict on a damaged
// file is the one folio always had.
func decodeJPEG(r io.Reader, size int64, w, h, denom int) (image.Image, int, error) {
	if size > maxTurboBytes {
		m, err := decode(r, probe.JPEG)
		return m, 1, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, 0, fmt.Errorf("%w: %s: %v", ErrDecode, probe.JPEG, err)
	}
	if m, err := turboDecode(data, w, h, denom); err == nil {
		return m, denom, nil
	}
	m, err := decode(bytes.NewReader(data), probe.JPEG)
	return m, 1, err
}

// turboDecode is libjpeg-turbo's decode alone, without the fallback.
func turboDecode(data []byte, w, h, denom int) (*image.NRGBA, error) {
	if len(data) == 0 || w <= 0 || h <= 0 {
		return nil, fmt.Errorf("%w: empty", ErrDecode)
	}
	switch denom {
	case 1, 2, 4, 8:
	default:
		return nil, fmt.Errorf("derive: jpeg scale 1/%d", denom)
	}
	ow, oh := scaledSize(w, h, denom)
	m := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	var msg [C.JMSG_LENGTH_MAX]C.char
	rc := C.folio_jpeg_decode((*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), C.int(w), C.int(h), C.int(denom),
		(*C.uchar)(unsafe.Pointer(&m.Pix[0])), C.int(ow), C.int(oh), C.long(turboMaxMemory(w, h)),
		&msg[0], C.int(len(msg)))
	switch rc {
	case 0:
		return m, nil
	case 2:
		return nil, errTurboUnsupported
	}
	return nil, fmt.Errorf("%w: libjpeg: %s", ErrDecode, C.GoString(&msg[0]))
}

// turboMaxMemory bounds what libjpeg allocates for itself: the
// coefficients a progressive JPEG of w×h keeps (two bytes each, three
// full-resolution components at most), plus room for its row buffers.
// The pixels go to Go's image, outside this.
func turboMaxMemory(w, h int) int64 {
	return int64(w)*int64(h)*6 + 16<<20
}
