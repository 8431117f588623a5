// ligozone_oracle.cpp - NeL's own CZoneBankElement::serial through COXml, as a test oracle
// for maxfs's .ligozone writer (exporters/nel/src/zone_build/ligo.rs). Never linked into maxfs.
//
// Usage: ligozone_oracle OUT SIZEX SIZEY MASK [TYPE=VALUE]...
// MASK is a string of 0/1 (row-major, SIZEX*SIZEY). Writes OUT as the NeL ligo plugin does:
// setMask(mask, sizeX, sizeY), addCategory(type, value) in argument order, COXml serial.
#include "nel/misc/types_nl.h"
#include "nel/misc/app_context.h"
#include "nel/misc/file.h"
#include "nel/misc/o_xml.h"
#include "nel/ligo/zone_bank.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace std;
using namespace NLMISC;
using namespace NLLIGO;

namespace NL3D { class IDriver; IDriver *createGlDriverInstance() { return NULL; } }

int main(int argc, char **argv)
{
	if (argc < 5) { fprintf(stderr, "usage: ligozone_oracle OUT SIZEX SIZEY MASK [TYPE=VALUE]...\n"); return 2; }
	CApplicationContext ctx;
	try
	{
		vector<bool> mask;
		for (const char *c = argv[4]; *c; ++c) mask.push_back(*c == '1');
		CZoneBankElement elm;
		elm.setMask(mask, (uint8)atoi(argv[2]), (uint8)atoi(argv[3]));
		for (int i = 5; i < argc; ++i)
		{
			string a = argv[i];
			string::size_type eq = a.find('=');
			if (eq == string::npos) throw Exception("category without '='");
			elm.addCategory(a.substr(0, eq), a.substr(eq + 1));
		}
		COFile out;
		if (!out.open(argv[1])) throw Exception("cannot open output");
		{
			COXml xml;
			xml.init(&out, "1.0");
			elm.serial(xml);
		}
		out.close();
	}
	catch (const exception &e)
	{
		fprintf(stderr, "FAIL\t%s\n", e.what());
		return 1;
	}
	return 0;
}
