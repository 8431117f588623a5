// pacs_check.cpp - the NeL oracle for the collision and vegetation exports: loads .pacs_prim
// (binary and XML, NLPACS::CPrimitiveBlock), .cmb (NLPACS::CCollisionMeshBuild), .veget
// (NL3D::CVegetableShape) and .clod (NL3D::CLodCharacterShapeBuild, also built into a
// CLodCharacterShape) with NeL's own serializers, re-serializes them with NeL in the
// same form and compares the bytes with the input. For .cmb it also runs NeL's own
// CCollisionMeshBuild::link (exterior, then interior), as the exporter does before writing.
// Built against the oracle libraries of /work/shared/oracles/nel (tests/oracle/pacs_check.sh).
//
// Usage: pacs_check FILE...          one tab-separated line per file:
//   <OK|FAIL>\t<kind>\t<path>\t<facts or message>\t<reser: identical|DIFF at N>
//        pacs_check --xml BIN OUT    NeL's XML form (COXml) of a binary .pacs_prim, written to OUT
//        pacs_check --veget SHAPE OUT LIGHTED DOUBLE_SIDED PRECOMPUTE ALPHA BESTSIDED BEND_WEIGHT BEND_MODE
//            NeL's own CVegetableShape::build from the CMesh in SHAPE (its vertex buffer and the
//            primitive block of pass 0 of block 0, as buildVegetableShape takes them), written to OUT
#include "nel/misc/types_nl.h"
#include "nel/misc/app_context.h"
#include "nel/misc/debug.h"
#include "nel/misc/file.h"
#include "nel/misc/mem_stream.h"
#include "nel/misc/i_xml.h"
#include "nel/misc/o_xml.h"
#include "nel/pacs/primitive_block.h"
#include "nel/pacs/collision_mesh_build.h"
#include "nel/3d/vegetable_shape.h"
#include "nel/3d/lod_character_shape.h"
#include "nel/3d/register_3d.h"
#include "nel/3d/shape.h"
#include "nel/3d/mesh.h"

#include <cstdio>
#include <string>
#include <vector>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace std;
using namespace NLMISC;

namespace NL3D { class IDriver; IDriver *createGlDriverInstance() { return NULL; } }

static FILE *g_out = stdout;

static bool read_all(const string &p, vector<uint8> &out)
{
	ifstream f(p.c_str(), ios::binary);
	if (!f) return false;
	out.assign(istreambuf_iterator<char>(f), istreambuf_iterator<char>());
	return true;
}

static string compare(const vector<uint8> &a, const vector<uint8> &b)
{
	if (a == b) return "reser: identical";
	size_t n = min(a.size(), b.size()), i = 0;
	while (i < n && a[i] == b[i]) ++i;
	ostringstream o;
	o << "reser: DIFF at " << i << " (sizes " << a.size() << " vs " << b.size() << ")";
	return o.str();
}

template <class T> static vector<uint8> write_bin(T &obj)
{
	CMemStream m(false);
	m.serial(obj);
	return vector<uint8>(m.buffer(), m.buffer() + m.length());
}

static vector<uint8> write_xml(NLPACS::CPrimitiveBlock &pb)
{
	CMemStream m(false);
	{
		COXml x;
		if (!x.init(&m, "1.0")) throw Exception("COXml init");
		pb.serial(x);
	} // the document is written when the COXml is destroyed
	return vector<uint8>(m.buffer(), m.buffer() + m.length());
}

static bool is_xml(const vector<uint8> &b)
{
	for (uint8 c : b) { if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue; return c == '<'; }
	return false;
}

static void check_one(const string &path)
{
	size_t d = path.rfind('.');
	string e = d == string::npos ? "" : path.substr(d + 1);
	vector<uint8> in;
	if (!read_all(path, in)) { fprintf(g_out, "FAIL\t%s\t%s\tcannot open\t-\n", e.c_str(), path.c_str()); return; }
	string facts, reser;
	try
	{
		CMemStream m(true);
		m.fill(in.data(), (uint32)in.size());
		if (e == "pacs_prim")
		{
			NLPACS::CPrimitiveBlock pb;
			bool xml = is_xml(in);
			if (xml)
			{
				CIXml x;
				if (!x.init(m)) throw Exception("CIXml init");
				pb.serial(x);
			}
			else
				pb.serial(m);
			ostringstream o;
			o << (xml ? "xml" : "binary") << " primitives=" << pb.Primitives.size();
			for (const auto &p : pb.Primitives)
				o << " [type=" << (int)p.Type << " reaction=" << (int)p.Reaction << " trigger=" << (int)p.Trigger
				  << " obstacle=" << p.Obstacle << " occl=" << p.OcclusionMask << " coll=" << p.CollisionMask
				  << " len=" << p.Length[0] << "," << p.Length[1] << " h=" << p.Height << " att=" << p.Attenuation
				  << " pos=" << p.Position.x << "," << p.Position.y << "," << p.Position.z << " rot=" << p.Orientation
				  << " user=" << p.UserData << "]";
			facts = o.str();
			vector<uint8> out = xml ? write_xml(pb) : write_bin(pb);
			reser = compare(in, out);
		}
		else if (e == "cmb")
		{
			NLPACS::CCollisionMeshBuild cmb;
			cmb.serial(m);
			if (m.getPos() != (sint32)in.size()) facts += "TRAILING ";
			for (const auto &f : cmb.Faces)
				for (int k = 0; k < 3; ++k)
					if (f.V[k] >= cmb.Vertices.size()) throw Exception("face vertex out of range");
			vector<string> errors;
			NLPACS::CCollisionMeshBuild linked = cmb;
			linked.link(false, errors);
			linked.link(true, errors);
			uint open = 0;
			for (const auto &f : linked.Faces)
				for (int k = 0; k < 3; ++k)
					if (f.Edge[k] == -1) ++open;
			ostringstream o;
			o << "vertices=" << cmb.Vertices.size() << " faces=" << cmb.Faces.size() << " link_errors=" << errors.size()
			  << " open_edges=" << open;
			facts += o.str();
			vector<uint8> out = write_bin(cmb);
			reser = compare(in, out);
		}
		else if (e == "veget")
		{
			NL3D::CVegetableShape v;
			v.serial(m);
			if (m.getPos() != (sint32)in.size()) facts += "TRAILING ";
			ostringstream o;
			o << "vertices=" << v.VB.getNumVertices() << " triangles=" << v.TriangleIndices.size() / 3
			  << " lighted=" << v.Lighted << " double_sided=" << v.DoubleSided << " alpha_blend=" << v.AlphaBlend
			  << " bend_center=" << (int)v.BendCenterMode;
			for (uint32 i : v.TriangleIndices)
				if (i >= v.VB.getNumVertices()) throw Exception("triangle index out of range");
			facts += o.str();
			vector<uint8> out = write_bin(v);
			reser = compare(in, out);
		}
		else if (e == "clod")
		{
			NL3D::CLodCharacterShapeBuild b;
			b.serial(m);
			if (m.getPos() != (sint32)in.size()) facts += "TRAILING ";
			uint32 nv = (uint32)b.Vertices.size();
			if (b.SkinWeights.size() != nv || b.UVs.size() != nv || b.Normals.size() != nv)
				throw Exception("per-vertex arrays differ in size");
			for (uint32 i : b.TriangleIndices)
				if (i >= nv) throw Exception("triangle index out of range");
			for (const auto &w : b.SkinWeights)
				for (int k = 0; k < NL3D_MESH_SKINNING_MAX_MATRIX; ++k)
					if (w.Weights[k] > 0 && w.MatrixId[k] >= b.BonesNames.size()) throw Exception("weight on a missing bone");
			// NeL's own runtime build of the LOD from it.
			NL3D::CLodCharacterShape shape;
			shape.buildMesh("oracle", b);
			ostringstream o;
			o << "vertices=" << nv << " triangles=" << b.TriangleIndices.size() / 3 << " bones=" << b.BonesNames.size()
			  << " texture=" << b.getTextureInfoWidth() << "x" << b.getTextureInfoHeight()
			  << " built_vertices=" << shape.getNumVertices() << " built_triangles=" << shape.getNumTriangles();
			facts += o.str();
			vector<uint8> out = write_bin(b);
			reser = compare(in, out);
		}
		else
		{
			fprintf(g_out, "SKIP\t%s\t%s\tunknown extension\t-\n", e.c_str(), path.c_str());
			return;
		}
	}
	catch (const std::exception &ex)
	{
		fprintf(g_out, "FAIL\t%s\t%s\texception: %s\t-\n", e.c_str(), path.c_str(), ex.what());
		return;
	}
	fprintf(g_out, "OK\t%s\t%s\t%s\t%s\n", e.c_str(), path.c_str(), facts.c_str(), reser.c_str());
}

static int to_xml(const string &bin, const string &out)
{
	vector<uint8> in;
	if (!read_all(bin, in)) return 2;
	CMemStream m(true);
	m.fill(in.data(), (uint32)in.size());
	NLPACS::CPrimitiveBlock pb;
	pb.serial(m);
	vector<uint8> x = write_xml(pb);
	ofstream f(out.c_str(), ios::binary);
	f.write((const char *)x.data(), x.size());
	return f ? 0 : 2;
}

static int to_veget(char **a)
{
	NL3D::registerSerial3d();
	CIFile f;
	if (!f.open(a[0])) return 2;
	NL3D::CShapeStream ss;
	ss.serial(f);
	NL3D::CMesh *mesh = dynamic_cast<NL3D::CMesh *>(ss.getShapePointer());
	if (!mesh) { fprintf(stderr, "not a CMesh\n"); return 1; }
	if (mesh->getNbMatrixBlock() != 1 || mesh->getNbRdrPass(0) != 1) { fprintf(stderr, "not one block / one pass\n"); return 1; }
	NL3D::CVegetableShapeBuild b;
	b.VB = mesh->getVertexBuffer();
	// CMesh::build keeps 32-bit indices ("for build, force 32 bit indices"), and
	// CVegetableShape::build reads them as uint32; a loaded mesh may hold 16-bit ones.
	const NL3D::CIndexBuffer &src = mesh->getRdrPassPrimitiveBlock(0, 0);
	b.PB.setFormat(NL3D::CIndexBuffer::Indices32);
	b.PB.setNumIndexes(src.getNumIndexes());
	{
		NL3D::CIndexBufferRead r;
		src.lock(r);
		NL3D::CIndexBufferReadWrite w;
		b.PB.lock(w);
		uint32 *dst = (uint32 *)w.getPtr();
		for (uint32 k = 0; k < src.getNumIndexes(); ++k)
			dst[k] = r.getFormat() == NL3D::CIndexBuffer::Indices16 ? ((const uint16 *)r.getPtr())[k] : ((const uint32 *)r.getPtr())[k];
	}
	b.Lighted = atoi(a[2]) != 0;
	b.DoubleSided = atoi(a[3]) != 0;
	b.PreComputeLighting = atoi(a[4]) != 0;
	b.AlphaBlend = atoi(a[5]) != 0;
	b.BestSidedPreComputeLighting = atoi(a[6]) != 0;
	b.MaxBendWeight = (float)atof(a[7]);
	b.BendCenterMode = (NL3D::CVegetableShapeBuild::TBendCenterMode)atoi(a[8]);
	NL3D::CVegetableShape v;
	v.build(b);
	vector<uint8> x = write_bin(v);
	ofstream o(a[1], ios::binary);
	o.write((const char *)x.data(), x.size());
	return o ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc == 11 && string(argv[1]) == "--veget")
	{
		CApplicationContext ctx;
		createDebug(NULL, false);
		try { return to_veget(argv + 2); } catch (const std::exception &ex) { fprintf(stderr, "%s\n", ex.what()); return 1; }
	}
	if (argc == 4 && string(argv[1]) == "--xml")
	{
		CApplicationContext ctx;
		createDebug(NULL, false);
		try { return to_xml(argv[2], argv[3]); } catch (const std::exception &ex) { fprintf(stderr, "%s\n", ex.what()); return 1; }
	}
	for (int i = 1; i < argc; ++i)
	{
		string p = argv[i];
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
		{
			int outfd = dup(1); dup2(2, 1); g_out = fdopen(outfd, "w");
			CApplicationContext ctx;
			createDebug(NULL, false);
			check_one(p);
			fflush(g_out);
			_exit(0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st))
			printf("FAIL\t-\t%s\tcrash: signal %d inside NeL\t-\n", p.c_str(), WTERMSIG(st));
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			printf("FAIL\t-\t%s\tchild exit %d\t-\n", p.c_str(), WEXITSTATUS(st));
		fflush(stdout);
	}
	return 0;
}
