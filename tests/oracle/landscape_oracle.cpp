// landscape_oracle.cpp - NeL's own zone symmetrisation (CPatchInfo::transform with
// CZoneSymmetrisation) and ligo zone template (CZoneTemplate::build / getMask), as test
// oracles for maxfs's ports (exporters/nel/src/zone_build). Never linked into maxfs.
//
// landscape_oracle transform BANK SNAPCELL WELD OUTDIR FILE...
//   For each zone FILE and each of the 8 transforms (symmetry 0/1 x rotate 0..3): load it,
//   CZone::retrieve, drop border vertices and the binds that name another zone (what the
//   exporter has before the zone welder runs), move every control point through
//   M = scale(1,-1,1) * rotateZ(pi*rotate/2) (the identity for s0r0), then what
//   RPatchMesh::exportZone does for a node with ZONE_SYMMETRY / ZONE_ROTATE:
//   CPatchInfo::transform(patches, symmetrisation, bank, symmetry, rotate, SNAPCELL, WELD,
//   M^-1) and CZone::build(zoneId, patches, no border vertices), written with CZone::serial
//   to OUTDIR/<basename>.s<sym>r<rot>. One line per case on stdout:
//   OK<TAB>file<TAB>s<sym>r<rot>, or FAIL<TAB>file<TAB>s<sym>r<rot><TAB>why.
//
// landscape_oracle template CELLSIZE SNAP FILE
//   FILE holds "v x y z" lines (vertices) and "e a b" lines (open edges, in the order the
//   plug-in lists them). Runs CZoneTemplate::build; prints "OK W H <mask 0/1 row-major>"
//   or "FAIL <main error code>".
//
// landscape_oracle brick BANK SNAPCELL WELD SYM ROT M00 M01 M02 M10 ... M32 ZONE OUT
//   What NeLLigoExportZone makes of a zone's patches placed by the Max object TM M (rows
//   X, Y, Z axes then translation): ZONE is loaded and retrieved; as RPatchMesh::exportZone
//   would have them (zone id 0, binds naming another zone dropped, unused bind slots
//   zeroed, lumels 255, no light influences, vegetation above water, empty layers'
//   rotation and tile flag bit 15 cleared), every control point is first fitted to one
//   cell (x' = (x - LOX) * KX, y' = (y - LOY) * KY in float), then moved by M in Max's
//   float order (x*M0 + y*M1 + z*M2 + M3), then CPatchInfo::transform (SYM, ROT, toOriginal
//   = (scale(1,-1,1) * rotateZ(pi*ROT/2))^-1) when SYM or ROT, CZone::build(0), serial to OUT.
//
// landscape_oracle square CELLSIZE ZONE
//   LIGO_USE_BOUNDINGBOX's mask (ligo plugin_max script.cpp getSquareMask) of a zone NeL
//   reads and retrieves: every patch corner's cell ((uint)((x + cell/2) / cell), same for
//   y), the largest of each (at least 1) as width and height, every cell set. Prints
//   "OK W H".
//
// landscape_oracle reread FILE...
//   NeL reads each .zone (CZone::serial) or .ligozone (CIXml, CZoneBankElement::serial) and
//   writes it back (COFile / COXml); one line each: OK<TAB>file<TAB>same|DIFF<TAB>facts.
#include "nel/misc/types_nl.h"
#include "nel/misc/app_context.h"
#include "nel/misc/file.h"
#include "nel/misc/matrix.h"
#include "nel/3d/zone.h"
#include "nel/3d/zone_symmetrisation.h"
#include "nel/3d/tile_bank.h"
#include "nel/ligo/zone_template.h"
#include "nel/ligo/ligo_config.h"
#include "nel/ligo/ligo_error.h"
#include "nel/ligo/zone_bank.h"
#include "nel/misc/i_xml.h"
#include "nel/misc/o_xml.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace std;
using namespace NLMISC;
using namespace NL3D;
using namespace NLLIGO;

namespace NL3D { class IDriver; IDriver *createGlDriverInstance() { return NULL; } }

static int transformCmd(int argc, char **argv)
{
	if (argc < 7) { fprintf(stderr, "usage: landscape_oracle transform BANK SNAPCELL WELD OUTDIR FILE...\n"); return 2; }
	CTileBank bank;
	{
		CIFile in;
		if (!in.open(argv[2])) { fprintf(stderr, "cannot open bank\n"); return 2; }
		bank.serial(in);
		bank.computeXRef();
	}
	float snapCell = (float)atof(argv[3]);
	float weld = (float)atof(argv[4]);
	string outDir = argv[5];
	int failures = 0;
	for (int i = 6; i < argc; ++i)
	{
		string path = argv[i];
		string base = path.substr(path.find_last_of('/') + 1);
		for (uint sym = 0; sym < 2; ++sym)
		for (uint rot = 0; rot < 4; ++rot)
		{
			char tag[16];
			sprintf(tag, "s%ur%u", sym, rot);
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
				uint16 zoneId = zone.getZoneId();
				CMatrix m, r;
				m.identity();
				r.identity();
				if (sym) m.scale(CVector(1, -1, 1));
				r.rotateZ((float)Pi * (float)rot / 2.f);
				m *= r;
				for (uint p = 0; p < info.Patchs.size(); ++p)
				{
					CPatchInfo &pi = info.Patchs[p];
					for (uint e = 0; e < 4; ++e)
					{
						CPatchInfo::CBindInfo &b = pi.BindEdges[e];
						if (b.ZoneId != zoneId)
						{
							b.NPatchs = 0;
							b.ZoneId = zoneId;
							for (uint k = 0; k < 4; ++k) { b.Next[k] = 0; b.Edge[k] = 0; }
						}
					}
					if (sym || rot)
					{
						for (uint k = 0; k < 4; ++k) pi.Patch.Vertices[k] = m * pi.Patch.Vertices[k];
						for (uint k = 0; k < 8; ++k) pi.Patch.Tangents[k] = m * pi.Patch.Tangents[k];
						for (uint k = 0; k < 4; ++k) pi.Patch.Interiors[k] = m * pi.Patch.Interiors[k];
					}
				}
				if (sym || rot)
				{
					// rpo2nel.cpp RPatchMesh::exportZone, the same steps.
					CMatrix s2, r2;
					s2.identity();
					r2.identity();
					if (sym) s2.scale(CVector(1, -1, 1));
					r2.rotateZ((float)Pi * (float)rot / 2.f);
					s2 *= r2;
					s2.invert();
					CZoneSymmetrisation zs;
					if (!CPatchInfo::transform(info.Patchs, zs, bank, sym != 0, rot, snapCell, weld, s2))
						throw Exception("CPatchInfo::transform returned false");
				}
				CZone built;
				built.build(zoneId, info.Patchs, std::vector<CBorderVertex>());
				COFile out;
				if (!out.open(outDir + "/" + base + "." + tag)) throw Exception("cannot open output");
				built.serial(out);
				out.close();
				printf("OK\t%s\t%s\n", path.c_str(), tag);
			}
			catch (const exception &e)
			{
				printf("FAIL\t%s\t%s\t%s\n", path.c_str(), tag, e.what());
				++failures;
			}
		}
	}
	return 0;
}

static int templateCmd(int argc, char **argv)
{
	if (argc != 5) { fprintf(stderr, "usage: landscape_oracle template CELLSIZE SNAP FILE\n"); return 2; }
	CLigoConfig config;
	config.CellSize = (float)atof(argv[2]);
	config.Snap = (float)atof(argv[3]);
	vector<CVector> vertices;
	vector<pair<uint, uint> > edges;
	ifstream in(argv[4]);
	string line;
	while (getline(in, line))
	{
		istringstream ls(line);
		string kind;
		ls >> kind;
		if (kind == "v") { float x, y, z; ls >> x >> y >> z; vertices.push_back(CVector(x, y, z)); }
		else if (kind == "e") { uint a, b; ls >> a >> b; edges.push_back(make_pair(a, b)); }
	}
	CZoneTemplate zt;
	CLigoError errors;
	if (!zt.build(vertices, edges, config, errors))
	{
		printf("FAIL %d\n", (int)errors.MainError);
		return 0;
	}
	vector<bool> mask;
	uint w, h;
	zt.getMask(mask, w, h);
	printf("OK %u %u ", w, h);
	for (uint i = 0; i < mask.size(); ++i) putchar(mask[i] ? '1' : '0');
	printf("\n");
	return 0;
}

static int brickCmd(int argc, char **argv)
{
	if (argc != 25) { fprintf(stderr, "usage: landscape_oracle brick BANK SNAPCELL WELD SYM ROT M00..M32 LOX LOY KX KY ZONE OUT\n"); return 2; }
	CTileBank bank;
	{
		CIFile in;
		if (!in.open(argv[2])) { fprintf(stderr, "cannot open bank\n"); return 2; }
		bank.serial(in);
		bank.computeXRef();
	}
	float snapCell = (float)atof(argv[3]);
	float weld = (float)atof(argv[4]);
	bool sym = atoi(argv[5]) != 0;
	uint rot = (uint)atoi(argv[6]);
	float m[4][3];
	for (int k = 0; k < 12; ++k) m[k / 3][k % 3] = strtof(argv[7 + k], NULL);
	float lo[2] = { strtof(argv[19], NULL), strtof(argv[20], NULL) };
	float kk[2] = { strtof(argv[21], NULL), strtof(argv[22], NULL) };
	try
	{
		CZone zone;
		{
			CIFile in;
			if (!in.open(argv[23])) throw Exception("cannot open input");
			zone.serial(in);
		}
		CZoneInfo info;
		zone.retrieve(info);
		uint16 zoneId = zone.getZoneId();
		for (uint p = 0; p < info.Patchs.size(); ++p)
		{
			CPatchInfo &pi = info.Patchs[p];
			for (uint e = 0; e < 4; ++e)
			{
				CPatchInfo::CBindInfo &b = pi.BindEdges[e];
				if (b.ZoneId != zoneId) b.NPatchs = 0;
				b.ZoneId = 0;
				uint used = b.NPatchs == 5 ? 1 : b.NPatchs;
				for (uint k = used; k < 4; ++k) { b.Next[k] = 0; b.Edge[k] = 0; }
			}
			pi.Lumels.clear();
			pi.Lumels.resize(pi.OrderS * 4 * pi.OrderT * 4, 255);
			pi.TileLightInfluences.clear();
			for (uint t = 0; t < pi.Tiles.size(); ++t)
			{
				// A fresh element with the fields exportZone sets (its Flags start at 0).
				CTileElement &el = pi.Tiles[t];
				CTileElement fresh;
				memset(&fresh, 0, sizeof(fresh));
				for (uint l = 0; l < 3; ++l)
				{
					fresh.Tile[l] = el.Tile[l];
					if (el.Tile[l] != 0xffff) fresh.setTileOrient(l, el.getTileOrient(l));
				}
				bool is256;
				uint8 uvOff;
				el.getTile256Info(is256, uvOff);
				if (el.Tile[0] == 0xffff) is256 = false, uvOff = 0;
				fresh.setTile256Info(is256, is256 ? uvOff : 0);
				fresh.setTileSubNoise(el.getTileSubNoise());
				fresh.setVegetableState(CTileElement::AboveWater);
				el = fresh;
			}
			CVector *pts[16];
			for (uint k = 0; k < 4; ++k) pts[k] = &pi.Patch.Vertices[k];
			for (uint k = 0; k < 8; ++k) pts[4 + k] = &pi.Patch.Tangents[k];
			for (uint k = 0; k < 4; ++k) pts[12 + k] = &pi.Patch.Interiors[k];
			for (uint k = 0; k < 16; ++k)
			{
				CVector v = *pts[k];
				v.x = (v.x - lo[0]) * kk[0];
				v.y = (v.y - lo[1]) * kk[1];
				float r[3];
				for (uint c = 0; c < 3; ++c) r[c] = v.x * m[0][c] + v.y * m[1][c] + v.z * m[2][c] + m[3][c];
				*pts[k] = CVector(r[0], r[1], r[2]);
			}
		}
		if (sym || rot)
		{
			CMatrix s2, r2;
			s2.identity();
			r2.identity();
			if (sym) s2.scale(CVector(1, -1, 1));
			r2.rotateZ((float)Pi * (float)rot / 2.f);
			s2 *= r2;
			s2.invert();
			CZoneSymmetrisation zs;
			if (!CPatchInfo::transform(info.Patchs, zs, bank, sym, rot, snapCell, weld, s2))
				throw Exception("CPatchInfo::transform returned false");
		}
		CZone built;
		built.build(0, info.Patchs, std::vector<CBorderVertex>());
		COFile out;
		if (!out.open(argv[24])) throw Exception("cannot open output");
		built.serial(out);
		printf("OK\n");
	}
	catch (const exception &e)
	{
		printf("FAIL\t%s\n", e.what());
	}
	return 0;
}

static bool readAll(const string &path, string &out)
{
	ifstream in(path.c_str(), ios::binary);
	if (!in) return false;
	ostringstream ss;
	ss << in.rdbuf();
	out = ss.str();
	return true;
}

static int rereadCmd(int argc, char **argv)
{
	for (int i = 2; i < argc; ++i)
	{
		string path = argv[i];
		string tmp = path + ".nel-reread";
		try
		{
			string facts;
			if (path.size() > 5 && path.substr(path.size() - 5) == ".zone")
			{
				CZone zone;
				{
					CIFile in;
					if (!in.open(path)) throw Exception("cannot open");
					zone.serial(in);
				}
				facts = "patches=" + toString(zone.getNumPatchs()) + " id=" + toString(zone.getZoneId());
				COFile out;
				if (!out.open(tmp)) throw Exception("cannot write");
				zone.serial(out);
			}
			else
			{
				CZoneBankElement elm;
				{
					CIFile in;
					if (!in.open(path)) throw Exception("cannot open");
					CIXml xml;
					xml.init(in);
					elm.serial(xml);
				}
				facts = "size=" + elm.getCategory("size") + " zone=" + elm.getCategory("zone");
				COFile out;
				if (!out.open(tmp)) throw Exception("cannot write");
				COXml xml;
				xml.init(&out);
				elm.serial(xml);
				xml.flush();
			}
			string a, b;
			readAll(path, a);
			readAll(tmp, b);
			// The zone version byte: NeL writes CZone 5, the reference exporter's 4.
			printf("OK\t%s\t%s\t%s\n", path.c_str(), a == b ? "same" : "DIFF", facts.c_str());
		}
		catch (const exception &e)
		{
			printf("FAIL\t%s\t%s\n", path.c_str(), e.what());
		}
		remove(tmp.c_str());
	}
	return 0;
}

static int squareCmd(int argc, char **argv)
{
	if (argc != 4) { fprintf(stderr, "usage: square CELLSIZE ZONE\n"); return 2; }
	float cellSize = (float)atof(argv[2]);
	CZone zone;
	{
		CIFile in;
		if (!in.open(argv[3])) { printf("FAIL cannot open\n"); return 0; }
		zone.serial(in);
	}
	CZoneInfo info;
	zone.retrieve(info);
	sint maxX = 1, maxY = 1;
	for (uint i = 0; i < info.Patchs.size(); i++)
	{
		for (uint v = 0; v < 4; v++)
		{
			sint x = (uint)((info.Patchs[i].Patch.Vertices[v].x + cellSize / 2) / cellSize);
			sint y = (uint)((info.Patchs[i].Patch.Vertices[v].y + cellSize / 2) / cellSize);
			if (x > maxX) maxX = x;
			if (y > maxY) maxY = y;
		}
	}
	printf("OK %d %d\n", (int)maxX, (int)maxY);
	return 0;
}

int main(int argc, char **argv)
{
	CApplicationContext ctx;
	if (argc >= 2 && string(argv[1]) == "transform") return transformCmd(argc, argv);
	if (argc >= 2 && string(argv[1]) == "template") return templateCmd(argc, argv);
	if (argc >= 2 && string(argv[1]) == "brick") return brickCmd(argc, argv);
	if (argc >= 2 && string(argv[1]) == "reread") return rereadCmd(argc, argv);
	if (argc >= 2 && string(argv[1]) == "square") return squareCmd(argc, argv);
	fprintf(stderr, "usage: landscape_oracle transform|template ...\n");
	return 2;
}
