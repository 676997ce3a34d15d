/*
 * A stand-in for Windows' bcryptprimitives.dll, for running Go 1.26
 * programs under Wine 8 (make test-windows). The Go runtime takes its
 * random bytes from ProcessPrng in this DLL and stops at start when the
 * DLL is missing, which it is in Wine 8. ProcessPrng here asks
 * advapi32's RtlGenRandom (exported as SystemFunction036), which Wine
 * has. Never shipped: it goes into the test's Wine prefix only.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
	while (length > 0) {
		ULONG n = length > 0x40000000 ? 0x40000000 : (ULONG)length;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		length -= n;
	}
	return TRUE;
}
