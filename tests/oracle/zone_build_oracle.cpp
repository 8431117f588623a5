// zone_build_oracle.cpp - NeL's own CZone::retrieve + CZone::build, as a test oracle for
// maxfs's port (exporters/nel/src/zone_build). Never linked into maxfs.
//
// Usage: zone_build_oracle OUTDIR FILE...
// For each zone FILE: load it with CZone::serial, CZone::retrieve(CZoneInfo), then a fresh
// CZone::build(info, 0) and CZone::serial into OUTDIR/<basename of FILE>.
// One line per file on stdout: OK<TAB>path or FAIL<TAB>path<TAB>message.
#include "nel/misc/types_nl.h"
#include "nel/misc/app_context.h"
#include "nel/misc/file.h"
#include "nel/3d/zone.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace std;
using namespace NLMISC;
using namespace NL3D;

// NL_STATIC links reference the (not built) GL driver; nothing here creates a driver.
namespace NL3D { class IDriver; IDriver *createGlDriverInstance() { return NULL; } }

int main(int argc, char **argv)
{
	if (argc < 3) { fprintf(stderr, "usage: zone_build_oracle OUTDIR FILE...\n"); return 2; }
	CApplicationContext ctx;
	string outDir = argv[1];
	int failures = 0;
	for (int i = 2; i < argc; ++i)
	{
		string path = argv[i];
		string base = path.substr(path.find_last_of('/') + 1);
		try
		{
			CZone zone;
			{
				CIFile in;
				if (!in.open(path)) throw Exception("cannot open input");
				zone.serial(in);
			}
			CZoneInfo info;
			zone.retrieve(info);
			CZone rebuilt;
			rebuilt.build(info, 0);
			COFile out;
			if (!out.open(outDir + "/" + base)) throw Exception("cannot open output");
			rebuilt.serial(out);
			out.close();
			printf("OK\t%s\n", path.c_str());
		}
		catch (const exception &e)
		{
			printf("FAIL\t%s\t%s\n", path.c_str(), e.what());
			++failures;
		}
	}
	return failures ? 1 : 0;
}
